"""Vectorizable fp32 math written as LLVM IR: range reduction + polynomials (Cephes-style).

LLVM turns ``llvm.exp`` / ``llvm.log`` / ``llvm.sin`` into scalar libm calls, which stops the loop
vectorizer. These straight-line versions (selects, no branches, no calls) vectorize to the host's
SIMD width and are accurate to a few ulp over the whole fp32 range, NaN and infinities included.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llvmlite import ir

from .intrinsics import call_same, call_unary
from .sincos_reduce import sincos_reduce
from .types import f32, i32

_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
_LOG2E = 1.4426950408889634
_INV_LN2 = 1.4426950408889634


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


def exp_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    x = _clamp_keep_nan(b, x, -104.0, 89.0)
    nf, n = _round_to_int(b, b.fmul(x, c(_LOG2E)))
    r = _fma(b, nf, c(-_LN2_HI), x)
    r = _fma(b, nf, c(-_LN2_LO), r)
    return _ldexp2(b, _exp_reduced(b, r), n)


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
    e = exp_f32(b, b.fmul(ax, c(2.0)))
    big = b.fsub(c(1.0), b.fdiv(c(2.0), b.fadd(e, c(1.0))))
    big = call_same(b, "copysign", big, x)
    return b.select(b.fcmp_ordered("<", ax, c(0.625)), small, big)


def _sin_poly(b: ir.IRBuilder, r: ir.Value, z: ir.Value) -> ir.Value:
    p = poly(b, z, [-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1])
    return _fma(b, b.fmul(r, z), p, r)


def _cos_poly(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    p = poly(b, z, [2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2])
    return b.fadd(_fma(b, b.fmul(z, z), p, b.fmul(z, c(-0.5))), c(1.0))


def _quadrant_select(b: ir.IRBuilder, q: ir.Value, s: ir.Value, co: ir.Value) -> ir.Value:
    """sin(q*pi/2 + r) from sin(r) and cos(r)."""
    odd = b.trunc(q, ir.IntType(1))
    v = b.select(odd, co, s)
    neg = b.trunc(b.lshr(q, ir.Constant(i32, 1)), ir.IntType(1))
    return b.select(neg, b.fneg(v), v)


def _sincos_specials(b: ir.IRBuilder, x: ir.Value, result: ir.Value) -> ir.Value:
    bad = b.fcmp_unordered("uno", b.fsub(x, x), c(0.0))  # NaN or infinite
    return b.select(bad, c(math.nan), result)


def sin_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    r, z, q = sincos_reduce(b, x)
    v = _quadrant_select(b, q, _sin_poly(b, r, z), _cos_poly(b, z))
    v = b.select(b.fcmp_ordered("==", x, c(0.0)), x, v)  # sin(-0) = -0
    return _sincos_specials(b, x, v)


def cos_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    r, z, q = sincos_reduce(b, x)
    q1 = b.add(q, ir.Constant(i32, 1))  # cos(x) = sin(x + pi/2)
    v = _quadrant_select(b, q1, _sin_poly(b, r, z), _cos_poly(b, z))
    return _sincos_specials(b, x, v)


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
    big = b.fsub(c(1.0), exp_f32(b, poly(b, ax, _LOG_ERFC)))
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
    from .intrinsics import declare

    fn = declare(b.module, "log", x.type, [x.type])
    return b.call(fn, [x])


POLYNOMIAL_F32 = {
    "exp": exp_f32,
    "exp2": exp2_f32,
    "log": log_f32,
    "log2": log2_f32,
    "tanh": tanh_f32,
    "sin": sin_f32,
    "cos": cos_f32,
    "erf": erf_f32,
}
