"""Vectorizable fp32 math written as LLVM IR: range reduction + polynomials (Cephes-style).

LLVM turns ``llvm.exp`` / ``llvm.log`` / ``llvm.sin`` into scalar libm calls, which stops the loop
vectorizer. These straight-line versions (selects, no branches, no calls) vectorize to the host's
SIMD width and are accurate to a few ulp over the whole fp32 range, NaN and infinities included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llvmlite import ir
from llvmlite.ir.values import FormattedConstant

from .intrinsics import call_same, call_unary, declare
from .sincos_reduce import pio2_parts, sincos_reduce
from .types import f32, i32

_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
_LOG2E = 1.4426950408889634
_INV_LN2 = 1.4426950408889634
_SHIFTER = 12582912.0  # 1.5 * 2**23
_SHIFTER_BITS = 0x4B400000  # its bits


def c(value: float, t: ir.Type = f32) -> ir.Constant:
    return ir.Constant(t, value)


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    # fmuladd fuses where the target has FMA and stays a mul + add elsewhere (no libcall)
    return call_same(b, "fmuladd", x, y, z)


def poly(b: ir.IRBuilder, x: ir.Value, coeffs: Sequence[float]) -> ir.Value:
    """Horner evaluation: coeffs[0]*x^(n-1) + ... + coeffs[-1]."""
    acc: ir.Value = c(coeffs[0], x.type)
    for k in coeffs[1:]:
        acc = _fma(b, acc, x, c(k, x.type))
    return acc


def _ldexp2(b: ir.IRBuilder, y: ir.Value, n: ir.Value) -> ir.Value:
    """``y * 2**n`` for i32 ``n`` in [-252, 254], in two exact steps so denormals come out right."""
    half = b.ashr(n, ir.Constant(i32, 1))
    rest = b.sub(n, half)
    for part in (half, rest):
        bits = b.shl(b.add(part, ir.Constant(i32, 127)), ir.Constant(i32, 23))
        y = b.fmul(y, b.bitcast(bits, f32))
    return y


def _round_to_int(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(rint(x) as float, as i32) for |x| well inside the i32 range; NaN gives 0.

    A plain fptosi on a NaN-free value: LLVM's saturating conversion scalarizes on x86."""
    r = call_unary(b, "rint", x)
    clean = b.select(b.fcmp_unordered("uno", r, r), c(0.0, x.type), r)
    return r, b.fptosi(clean, i32)


def _clamp_keep_nan(b: ir.IRBuilder, x: ir.Value, lo: float, hi: float) -> ir.Value:
    x = b.select(b.fcmp_ordered(">", x, c(hi)), c(hi), x)
    return b.select(b.fcmp_ordered("<", x, c(lo)), c(lo), x)


def _exp_reduced(b: ir.IRBuilder, r: ir.Value) -> ir.Value:
    """e**r for |r| <= ln2/2."""
    p = poly(
        b,
        r,
        [
            1.9875691500e-4,
            1.3981999507e-3,
            8.3334519073e-3,
            4.1665795894e-2,
            1.6666665459e-1,
            5.0000001201e-1,
        ],
    )
    r2 = b.fmul(r, r)
    return b.fadd(_fma(b, p, r2, r), c(1.0))


def _shifted_round(b: ir.IRBuilder, v: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(rint(v) as float, as i32) for |v| < 2**22: adding 1.5 * 2**23 rounds v to an integer
    (to even, as rint does) in the low mantissa bits. Cheaper than rint + fptosi, and defined
    for NaN (the integer is then garbage, and every result it scales stays NaN)."""
    t = b.fadd(v, c(_SHIFTER))
    n = b.sub(b.bitcast(t, i32), ir.Constant(i32, _SHIFTER_BITS))
    return b.fsub(t, c(_SHIFTER)), n


def _exp_scaled(b: ir.IRBuilder, x: ir.Value, one_step: bool) -> ir.Value:
    nf, n = _shifted_round(b, b.fmul(x, c(_LOG2E)))
    r = _fma(b, nf, c(-_LN2_HI), x)
    r = _fma(b, nf, c(-_LN2_LO), r)
    p = _exp_reduced(b, r)
    if not one_step:
        return _ldexp2(b, p, n)
    bits = b.shl(b.add(n, ir.Constant(i32, 127)), ir.Constant(i32, 23))
    return b.fmul(p, b.bitcast(bits, f32))


def exp_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _exp_scaled(b, _clamp_keep_nan(b, x, -104.0, 89.0), one_step=False)


def _exp_normal(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """exp_f32's bits where e**x is a normal float (x in [-87, 88]; NaN stays NaN): one exact
    scaling instead of two and no clamp. Callers bound x themselves."""
    return _exp_scaled(b, x, one_step=True)


def exp2_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    x = _clamp_keep_nan(b, x, -151.0, 129.0)
    nf, n = _round_to_int(b, x)
    frac = b.fsub(x, nf)  # exact
    return _ldexp2(b, _exp_reduced(b, b.fmul(frac, c(math.log(2.0)))), n)


def _log_parts(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """Split positive finite x into (exponent e as float, ln(m)) with x = 2**e * m."""
    tiny = b.fcmp_ordered("<", x, c(1.1754943508222875e-38))
    xs = b.select(tiny, b.fmul(x, c(8388608.0)), x)  # scale denormals by 2**23
    bits = b.bitcast(xs, i32)
    e = b.sub(b.lshr(bits, ir.Constant(i32, 23)), ir.Constant(i32, 126))
    e = b.select(tiny, b.sub(e, ir.Constant(i32, 23)), e)
    m = b.bitcast(
        b.or_(b.and_(bits, ir.Constant(i32, 0x007FFFFF)), ir.Constant(i32, 0x3F000000)), f32
    )
    # m in [0.5, 1): fold into [sqrt(0.5), sqrt(2)) so the polynomial argument stays small
    small = b.fcmp_ordered("<", m, c(0.70710678118654752))
    e = b.select(small, b.sub(e, ir.Constant(i32, 1)), e)
    m = b.select(small, b.fadd(m, m), m)
    f = b.fsub(m, c(1.0))
    z = b.fmul(f, f)
    p = poly(
        b,
        f,
        [
            7.0376836292e-2,
            -1.1514610310e-1,
            1.1676998740e-1,
            -1.2420140846e-1,
            1.4249322787e-1,
            -1.6668057665e-1,
            2.0000714765e-1,
            -2.4999993993e-1,
            3.3333331174e-1,
        ],
    )
    y = b.fmul(b.fmul(p, f), z)
    y = _fma(b, z, c(-0.5), y)
    return b.sitofp(e, f32), b.fadd(f, y)


def _log_specials(b: ir.IRBuilder, x: ir.Value, result: ir.Value) -> ir.Value:
    inf = c(math.inf)
    result = b.select(b.fcmp_ordered("==", x, inf), inf, result)
    result = b.select(b.fcmp_ordered("==", x, c(0.0)), c(-math.inf), result)
    nan = b.fcmp_unordered("uno", x, x)
    neg = b.fcmp_ordered("<", x, c(0.0))
    return b.select(b.or_(nan, neg), c(math.nan), result)


def log_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    e, lnm = _log_parts(b, x)
    r = _fma(b, e, c(_LN2_LO), lnm)
    r = _fma(b, e, c(_LN2_HI), r)
    return _log_specials(b, x, r)


def log2_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    e, lnm = _log_parts(b, x)
    return _log_specials(b, x, _fma(b, lnm, c(_INV_LN2), e))


def tanh_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ax = call_unary(b, "fabs", x)
    z = b.fmul(x, x)
    small = _fma(
        b,
        b.fmul(x, z),
        poly(
            b,
            z,
            [
                -5.70498872745e-3,
                2.06390887954e-2,
                -5.37397155531e-2,
                1.33314422036e-1,
                -3.33332819422e-1,
            ],
        ),
        x,
    )
    # from 2|x| = 40 on, 2/(e+1) < 2**-57 and the result rounds to 1 anyway
    twice = b.fmul(ax, c(2.0))
    e = _exp_normal(b, b.select(b.fcmp_ordered(">", twice, c(40.0)), c(40.0), twice))
    big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e, c(1.0))))
    big = call_same(b, "copysign", big, x)
    return b.select(b.fcmp_ordered("<", ax, c(0.625)), small, big)


def _sin_poly(b: ir.IRBuilder, r: ir.Value, z: ir.Value) -> ir.Value:
    p = poly(b, z, [-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1])
    return _fma(b, b.fmul(r, z), p, r)


def _cos_poly(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    p = poly(b, z, [2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2])
    return b.fadd(_fma(b, b.fmul(z, z), p, b.fmul(z, c(-0.5, z.type))), c(1.0, z.type))


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    """``element``, or a vector of it as wide as ``t`` when ``t`` is a vector."""
    return ir.VectorType(element, t.count) if isinstance(t, ir.VectorType) else element


def _quadrant_select(b: ir.IRBuilder, q: ir.Value, s: ir.Value, co: ir.Value) -> ir.Value:
    """sin(q*pi/2 + r) from sin(r) and cos(r)."""
    odd = b.trunc(q, _like(q.type, ir.IntType(1)))
    v = b.select(odd, co, s)
    neg = b.trunc(b.lshr(q, ir.Constant(q.type, 1)), _like(q.type, ir.IntType(1)))
    return b.select(neg, b.fneg(v), v)


def _sincos_specials(b: ir.IRBuilder, x: ir.Value, result: ir.Value) -> ir.Value:
    bad = b.fcmp_unordered("uno", b.fsub(x, x), c(0.0, x.type))  # NaN or infinite
    return b.select(bad, c(math.nan, x.type), result)


def _sincos(b: ir.IRBuilder, x: ir.Value, cosine: bool, reduced: tuple[ir.Value, ...]) -> ir.Value:
    r, z, q = reduced
    if cosine:
        q = b.add(q, ir.Constant(q.type, 1))  # cos(x) = sin(x + pi/2)
    v = _quadrant_select(b, q, _sin_poly(b, r, z), _cos_poly(b, z))
    if not cosine:
        v = b.select(b.fcmp_ordered("==", x, c(0.0, x.type)), x, v)  # sin(-0) = -0
    return _sincos_specials(b, x, v)


def sin_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _sincos(b, x, False, sincos_reduce(b, x))


def cos_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _sincos(b, x, True, sincos_reduce(b, x))


# erf(x)/x as a polynomial in x*x on [0, 1], and log(erfc(x)) as a polynomial in x on
# [1, 3.95]: least-squares fits made for tilec (weighted relative error), each under 1 ulp
_ERF_SMALL = [-0.0005625399062409997, 0.004916026722639799, -0.02670995518565178,
              0.11280130594968796, -0.37612318992614746, 1.1283791065216064]  # fmt: skip
_LOG_ERFC = [1.6337403394572902e-06, -4.596761573338881e-05, 0.0005958483088761568,
             -0.004754196386784315, 0.026403207331895828, -0.11004400998353958,
             -0.6318690776824951, -1.130205512046814, 0.0003126041847281158]  # fmt: skip


def erf_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ax = call_unary(b, "fabs", x)
    small = b.fmul(x, poly(b, b.fmul(x, x), _ERF_SMALL))
    # log(erfc) is in [-18, -1.8] on the lanes this value is kept for (1 <= |x| < 3.95)
    big = b.fsub(c(1.0), _exp_normal(b, poly(b, ax, _LOG_ERFC)))
    big = b.select(b.fcmp_ordered(">=", ax, c(3.95)), c(1.0), big)
    big = call_same(b, "copysign", big, x)
    return b.select(b.fcmp_ordered("<", ax, c(1.0)), small, big)


def erfinv(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Inverse error function (M. Giles' single-precision approximation), in x's float type."""
    t = x.type
    one = c(1.0, t)
    w = b.fmul(b.fsub(one, x), b.fadd(one, x))
    w = b.fneg(log_f32(b, w)) if t == f32 else b.fneg(_libm_log(b, w))
    central = poly(
        b,
        b.fsub(w, c(2.5, t)),
        [
            2.81022636e-08,
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ],
    )
    tail = poly(
        b,
        b.fsub(call_unary(b, "sqrt", w), c(3.0, t)),
        [
            -0.000200214257,
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ],
    )
    p = b.select(b.fcmp_ordered("<", w, c(5.0, t)), central, tail)
    return b.fmul(p, x)


def _libm_log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    fn = declare(b.module, "log", x.type, [x.type])
    return b.call(fn, [x])


# --- sin and cos as calls with SIMD variants ------------------------------------------------
# sincos_reduce computes both reductions in every lane, and the Payne-Hanek one, for |x| >= 2**20
# only, costs more than the rest of sin. A branch per vector skips it, and a loop vectorizer
# only keeps a branch inside a function it calls: ``tilec.sinf`` is a scalar function whose
# vector variants (VFABI names in "vector-function-abi-variant", LLVM's own ISA token) test
# their lanes once and, when every lane is below 2**20, run the Cody-Waite reduction alone;
# otherwise each lane goes through the scalar function. Every path computes the bits the
# branch-free sin_f32 / cos_f32 compute.

_VARIANT_LANES = (2, 4, 8, 16)
_CODY_WAITE_LIMIT = 2.0**20  # sincos_reduce's bound for its Cody-Waite lanes
_KEEP = "llvm.compiler.used"


def _cody_waite(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """sincos_reduce's (r, r*r, quadrant) for lanes with |x| < 2**20, the same operations."""
    p1, p2, p3 = pio2_parts()
    t64 = _like(x.type, ir.DoubleType())
    xd = b.fpext(x, t64)
    n = call_unary(b, "rint", b.fmul(xd, ir.Constant(t64, 1.0 / (p1 + p2))))
    r = b.fsub(xd, b.fmul(n, ir.Constant(t64, p1)))
    r = b.fsub(r, b.fmul(n, ir.Constant(t64, p2)))
    r = b.fsub(r, b.fmul(n, ir.Constant(t64, p3)))
    r32 = b.fptrunc(r, x.type)
    return r32, b.fmul(r32, r32), b.fptosi(n, _like(x.type, i32))


def _raw_attributes(fn: ir.Function, *attrs: str) -> None:
    # llvmlite's attribute set only takes the names it knows: LLVM's own spelling for the rest
    for attr in attrs:
        set.add(fn.attributes, attr)


def _keep(module: ir.Module, fns: Sequence[ir.Function]) -> None:
    """List ``fns`` in llvm.compiler.used: unused internal functions are deleted long before
    the loop vectorizer would call them."""
    kept = module.globals.get(_KEEP)
    refs = list(kept.initializer.constant) if kept is not None else []
    refs += [FormattedConstant(ir.PointerType(), f.get_reference()) for f in fns]
    t = ir.ArrayType(ir.PointerType(), len(refs))
    if kept is None:
        kept = ir.GlobalVariable(module, t, _KEEP)
        kept.linkage, kept.section = "appending", "llvm.metadata"
    kept.value_type = t
    kept.initializer = ir.Constant(t, refs)


def _define(
    module: ir.Module, name: str, t: ir.Type, cosine: bool, scalar: ir.Function | None
) -> ir.Function:
    """``name(x)``: Cody-Waite alone when every lane allows it, else the full reduction (the
    scalar function) or the scalar function lane by lane (a vector variant)."""
    fn = ir.Function(module, ir.FunctionType(t, [t]), name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fast_block, slow_block = fn.append_basic_block("fast"), fn.append_basic_block("slow")
    (x,) = fn.args
    big = b.fcmp_unordered("uge", call_unary(b, "fabs", x), c(_CODY_WAITE_LIMIT, t))  # NaN too
    if isinstance(t, ir.VectorType):
        big = b.call(
            declare(module, f"llvm.vector.reduce.or.v{t.count}i1", ir.IntType(1), [big.type]), [big]
        )
    b.cbranch(big, slow_block, fast_block)
    b.position_at_end(fast_block)
    b.ret(_sincos(b, x, cosine, _cody_waite(b, x)))
    b.position_at_end(slow_block)
    if scalar is None:
        b.ret(_sincos(b, x, cosine, sincos_reduce(b, x)))
        return fn
    out: ir.Value = ir.Constant(t, ir.Undefined)
    for lane in range(t.count):
        k = ir.Constant(i32, lane)
        out = b.insert_element(out, b.call(scalar, [b.extract_element(x, k)]), k)
    b.ret(out)
    return fn


def _with_variants(b: ir.IRBuilder, x: ir.Value, cosine: bool) -> ir.Value:
    """A call of ``tilec.sinf`` / ``tilec.cosf``, defined with its variants on first use.

    The variants' slow lanes call ``<name>.lane``, which has no variants: were it the function
    that has them, the SLP vectorizer would widen those calls into the variant itself."""
    module, name = b.module, "tilec.cosf" if cosine else "tilec.sinf"
    scalar = module.globals.get(name)
    if not isinstance(scalar, ir.Function):
        lane = _define(module, f"{name}.lane", f32, cosine, None)
        variants = [_define(module, f"{name}.v{n}", ir.VectorType(f32, n), cosine, lane)
                    for n in _VARIANT_LANES]  # fmt: skip
        scalar = ir.Function(module, ir.FunctionType(f32, [f32]), name)
        scalar.linkage = "internal"
        entry = ir.IRBuilder(scalar.append_basic_block("entry"))
        entry.ret(entry.call(lane, list(scalar.args)))
        abi = ",".join(f"_ZGV_LLVM_N{n}v_{name}({name}.v{n})" for n in _VARIANT_LANES)
        for fn in (lane, scalar, *variants):
            _raw_attributes(fn, "nounwind", "willreturn", "memory(none)")
        # out of line, so the loop vectorizer sees one call it can widen and the slow lanes of
        # a variant do not copy the full reduction once per lane
        _raw_attributes(lane, "noinline")
        _raw_attributes(scalar, "noinline", f'"vector-function-abi-variant"="{abi}"')
        _keep(module, variants)
    return b.call(scalar, [x])


def sin_call(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _with_variants(b, x, cosine=False)


def cos_call(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _with_variants(b, x, cosine=True)


POLYNOMIAL_F32 = {
    "exp": exp_f32,
    "exp2": exp2_f32,
    "log": log_f32,
    "log2": log2_f32,
    "tanh": tanh_f32,
    "sin": sin_call,
    "cos": cos_call,
    "erf": erf_f32,
}
