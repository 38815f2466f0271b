"""Math functions (``MathOp``) on one element: SIMD-friendly IR where it matters, libm otherwise.

fp32 exp/exp2/log/log2/tanh/sin/cos use the polynomial code in llvm/mathlib.py so loops over them
vectorize; sqrt, floor, fma... are LLVM intrinsics with vector forms; the long tail (asin, lgamma,
pow, ...) calls the C math library, resolved when the object is loaded. fp16/bf16 compute in fp32.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.types import ScalarType
from ..llvm import exact_math, mathlib
from ..llvm import scalar as S
from ..llvm import types as T
from ..llvm.intrinsics import call_same, call_unary, declare, overloaded
from .scalar import from_compute, to_compute

# functions whose C name is <name> (double) / <name>f (float)
_LIBM_UNARY = {
    "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc",
    "cbrt", "expm1", "log1p", "log10", "lgamma", "tgamma", "logb", "exp", "exp2", "log", "log2",
    "sin", "cos", "tanh",
}  # fmt: skip
_LIBM_BINARY = {
    "pow": "pow",
    "atan2": "atan2",
    "fmod": "fmod",
    "hypot": "hypot",
    "nextafter": "nextafter",
    "fdim": "fdim",
    "remainder": "remainder",
    "fast_powf": "pow",
}
_BESSEL = {"j0", "j1", "y0", "y1"}  # double only in every C library
_INTRINSIC_UNARY = {
    "sqrt": "sqrt",
    "sqrt_rn": "sqrt",
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
    "round": "round",
    "rint": "rint",
    "nearbyint": "nearbyint",
    "abs": "fabs",
}
_ALIASES = {
    "fast_expf": "exp",
    "fast_logf": "log",
    "fast_log2f": "log2",
    "fast_sinf": "sin",
    "fast_cosf": "cos",
    "fast_tanf": "tan",
    "fast_log10f": "log10",
    "fast_exp10f": "exp10",
}


def libm(b: ir.IRBuilder, name: str, *xs: ir.Value) -> ir.Value:
    t = xs[0].type
    cname = name + ("f" if t == T.f32 else "")
    return b.call(declare(b.module, cname, t, [t] * len(xs)), list(xs))


def emit_math(b: ir.IRBuilder, fn: str, elem: ScalarType, args: list[ir.Value]) -> ir.Value:
    if elem.is_floating():
        if fn in exact_math.PREDICATES:
            return exact_math.predicate(b, fn, to_compute(b, args[0], elem))
        xs = [to_compute(b, a, elem) if i == 0 or fn != "ldexp" else a for i, a in enumerate(args)]
        if fn == "ilogb":
            return b.call(
                declare(
                    b.module, "ilogb" + ("f" if xs[0].type == T.f32 else ""), T.i32, [xs[0].type]
                ),
                [xs[0]],
            )
        if fn == "fma" and elem.bits == 16:  # one rounding, as the native fma.rn.f16/bf16
            return from_compute(b, S.fma_to_odd(b, *xs), elem)
        return from_compute(b, _float_math(b, _ALIASES.get(fn, fn), xs), elem)
    return exact_math.integer(b, fn, args, elem)


def _float_math(b: ir.IRBuilder, fn: str, xs: list[ir.Value]) -> ir.Value:
    x = xs[0]
    t = x.type
    one = ir.Constant(t, 1.0)
    if fn in _INTRINSIC_UNARY:
        return call_unary(b, _INTRINSIC_UNARY[fn], x)
    if t == T.f32 and fn in mathlib.POLYNOMIAL_F32:
        return mathlib.POLYNOMIAL_F32[fn](b, x)
    simple: dict[str, Callable[[], ir.Value]] = {
        "neg": lambda: b.fneg(x),
        "rsqrt": lambda: b.fdiv(one, call_unary(b, "sqrt", x)),
        "rcp_rn": lambda: b.fdiv(one, x),
        "fma": lambda: call_same(b, "fma", *xs),
        "fmin": lambda: call_same(b, "minnum", *xs),
        "fmax": lambda: call_same(b, "maxnum", *xs),
        "copysign": lambda: call_same(b, "copysign", *xs),
        "div_rn": lambda: b.fdiv(*xs),
        "fdiv_ieee": lambda: b.fdiv(*xs),
        "fast_dividef": lambda: b.fdiv(*xs),
        "saturatef": lambda: _saturate(b, x),
        "exp10": lambda: _exp10(b, x),
        "rcbrt": lambda: b.fdiv(one, libm(b, "cbrt", x)),
        "sinpi": lambda: _float_math(b, "sin", [_times_pi_mod_2pi(b, x)]),
        "cospi": lambda: _float_math(b, "cos", [_times_pi_mod_2pi(b, x)]),
        "erfinv": lambda: _erfinv(b, x),
        "erfcinv": lambda: _erfinv(b, b.fsub(one, x)),
        "normcdf": lambda: b.fmul(
            ir.Constant(t, 0.5), libm(b, "erfc", b.fmul(x, ir.Constant(t, -1.0 / math.sqrt(2.0))))
        ),
        "normcdfinv": lambda: b.fmul(
            ir.Constant(t, -math.sqrt(2.0)),
            _erfinv(b, b.fsub(one, b.fmul(x, ir.Constant(t, 2.0)))),
        ),
        "erfcx": lambda: b.fmul(_float_math(b, "exp", [b.fmul(x, x)]), libm(b, "erfc", x)),
        "ldexp": lambda: _ldexp(b, x, xs[1]),
    }
    if fn in simple:
        return simple[fn]()
    if fn in _LIBM_UNARY:
        return libm(b, fn, x)
    if fn in _LIBM_BINARY:
        return libm(b, _LIBM_BINARY[fn], *xs)
    if fn in _BESSEL:
        wide = b.fpext(x, T.f64) if t == T.f32 else x
        r = b.call(declare(b.module, fn, T.f64, [T.f64]), [wide])
        return b.fptrunc(r, t) if t == T.f32 else r
    raise UnsupportedFeature(f"math function {fn!r} on floating-point values (CPU backend)")


def _times_pi_mod_2pi(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """pi * (x - 2*rint(x/2)): the reduction is exact, so sinpi/cospi stay accurate for any x."""
    half = b.fmul(x, ir.Constant(x.type, 0.5))
    r = b.fsub(x, b.fmul(call_unary(b, "rint", half), ir.Constant(x.type, 2.0)))
    return b.fmul(r, ir.Constant(x.type, math.pi))


def _erfinv(b: ir.IRBuilder, y: ir.Value) -> ir.Value:
    """Inverse erf: the fp32 approximation, refined by Newton steps on erf (two in fp64, where
    the approximation alone would be far from double precision)."""
    x = mathlib.erfinv(b, y)
    if y.type != T.f64:
        return x
    scale = ir.Constant(T.f64, 2.0 / math.sqrt(math.pi))
    for _ in range(2):
        slope = b.fmul(scale, libm(b, "exp", b.fneg(b.fmul(x, x))))
        step = b.fdiv(b.fsub(libm(b, "erf", x), y), slope)
        finite = b.fcmp_ordered("<", call_unary(b, "fabs", step), ir.Constant(T.f64, math.inf))
        x = b.select(finite, b.fsub(x, step), x)  # +-1 map to +-inf: keep them
    return x


def _exp10(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """10**x: fp64 through pow (C has no portable exp10); fp32 as 2**t with t = x*log2(10)
    split into a rounded part and its error, so large |x| keep full accuracy."""
    t = x.type
    if t != T.f32:
        return libm(b, "pow", ir.Constant(t, 10.0), x)
    hi = 3.321928024291992  # log2(10) rounded to fp32
    lo = math.log2(10.0) - hi
    p = b.fmul(x, ir.Constant(t, hi))
    err = call_same(b, "fma", x, ir.Constant(t, hi), b.fneg(p))
    err = call_same(b, "fmuladd", x, ir.Constant(t, lo), err)
    r = mathlib.exp2_f32(b, p)
    return call_same(b, "fmuladd", r, b.fmul(err, ir.Constant(t, math.log(2.0))), r)


def _saturate(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    t = x.type
    lo = b.select(b.fcmp_ordered(">", x, ir.Constant(t, 0.0)), x, ir.Constant(t, 0.0))  # NaN → 0
    return b.select(b.fcmp_ordered("<", lo, ir.Constant(t, 1.0)), lo, ir.Constant(t, 1.0))


def _ldexp(b: ir.IRBuilder, x: ir.Value, n: ir.Value) -> ir.Value:
    n32 = b.sext(n, T.i32) if n.type.width < 32 else b.trunc(n, T.i32) if n.type.width > 32 else n
    fn = overloaded(b.module, "llvm.ldexp", x.type, [x.type, T.i32], [x.type, T.i32])
    return b.call(fn, [x, n32])


TRANSCENDENTAL_WEIGHT = 10
CHEAP = {
    "abs",
    "neg",
    "not",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "nearbyint",
    "round",
    "fma",
    "fmin",
    "fmax",
    "copysign",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "saturatef",
}


def weight(fn: str) -> int:
    """Per-element cost estimate used to decide whether to recompute or materialize."""
    return 1 if fn in CHEAP else TRANSCENDENTAL_WEIGHT
