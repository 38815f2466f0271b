"""Math functions (``MathOp``) on one element: SIMD-friendly IR where it matters, libm otherwise.

fp32 exp/exp2/log/log2/tanh/sin/cos use the polynomial code in llvm/mathlib.py so loops over them
vectorize; sqrt, floor, fma... are LLVM intrinsics with vector forms; the long tail (asin, lgamma,
pow, ...) calls the C math library, resolved when the object is loaded. fp16/bf16 compute in fp32.
Which of these a function takes is its row of llvm/math_table.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.types import ScalarType
from ..llvm import exact_math, math_table, mathlib
from ..llvm import scalar as S
from ..llvm import types as T
from ..llvm.intrinsics import call_same, call_unary, declare, overloaded
from ..llvm.math_table import Entry, Via
from .scalar import from_compute, to_compute


def libm(b: ir.IRBuilder, name: str, *xs: ir.Value) -> ir.Value:
    t = xs[0].type
    cname = name + ("f" if t == T.f32 else "")
    return b.call(declare(b.module, cname, t, [t] * len(xs)), list(xs))


def emit_math(b: ir.IRBuilder, fn: str, elem: ScalarType, args: list[ir.Value]) -> ir.Value:
    if not elem.is_floating():
        return exact_math.integer(b, fn, args, elem)
    if fn in exact_math.PREDICATES:
        return exact_math.predicate(b, fn, to_compute(b, args[0], elem))
    if fn in _SIGN_MASKS and elem.bits == 16:
        return _sign_bit(b, fn, args[0])
    xs = [to_compute(b, a, elem) if i == 0 or fn != "ldexp" else a for i, a in enumerate(args)]
    if fn == "ilogb":
        return exact_math.ilogb(b, xs[0])
    if fn == "fma" and elem.bits == 16:  # one rounding, as the native fma.rn.f16/bf16
        return from_compute(b, S.fma_to_odd(b, *xs), elem)
    return from_compute(b, _float_math(b, fn, xs), elem)


_SIGN_MASKS = {"neg": ("xor", 0x8000), "abs": ("and_", 0x7FFF)}


def _sign_bit(b: ir.IRBuilder, fn: str, x: ir.Value) -> ir.Value:
    """fp16/bf16 neg and abs on the storage bits: they flip or clear the sign bit and nothing
    else, as on GPUs. Through fp32 the round trip would quiet a signalling NaN."""
    method, mask = _SIGN_MASKS[fn]
    bits = b.bitcast(x, T.i16)
    return b.bitcast(getattr(b, method)(bits, ir.Constant(T.i16, mask)), x.type)


def _entry(fn: str) -> Entry:
    entry = math_table.row(fn).cpu
    if entry is None:
        raise UnsupportedFeature(f"math function {fn!r} on floating-point values (CPU backend)")
    return entry


def _float_math(b: ir.IRBuilder, fn: str, xs: list[ir.Value]) -> ir.Value:
    entry = _entry(fn)
    match entry.via:
        case Via.ALIAS:
            return _float_math(b, entry.name, xs)
        case Via.INTRINSIC:
            return call_same(b, entry.name, *xs)
        case Via.POLYNOMIAL if xs[0].type == T.f32:
            return mathlib.POLYNOMIAL_F32[fn](b, xs[0])
        case Via.LIBRARY | Via.POLYNOMIAL:
            return _library(b, entry, xs, xs[0].type)
        case Via.OWN:
            return _OWN[fn](b, xs)
    raise UnsupportedFeature(f"math function {fn!r} on floating-point values (CPU backend)")


def _library(b: ir.IRBuilder, entry: Entry, xs: list[ir.Value], ret: ir.Type) -> ir.Value:
    """The C library's function; fp32 goes through the double one where C has no float one
    (the Bessel functions)."""
    t = xs[0].type
    if t == T.f32 and entry.f32:
        return b.call(declare(b.module, entry.f32, ret, [t] * len(xs)), xs)
    wide = [b.fpext(x, T.f64) for x in xs] if t == T.f32 else xs
    r = b.call(declare(b.module, entry.f64, T.f64 if ret == t else ret, [T.f64] * len(xs)), wide)
    return b.fptrunc(r, t) if t == T.f32 and ret == t else r


def _one(x: ir.Value) -> ir.Constant:
    return ir.Constant(x.type, 1.0)


def _normcdf(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    t = x.type
    scaled = b.fmul(x, ir.Constant(t, -1.0 / math.sqrt(2.0)))
    return b.fmul(ir.Constant(t, 0.5), libm(b, "erfc", scaled))


def _normcdfinv(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    t = x.type
    y = b.fsub(_one(x), b.fmul(x, ir.Constant(t, 2.0)))
    return b.fmul(ir.Constant(t, -math.sqrt(2.0)), _erfinv(b, y))


_OWN: dict[str, Callable[[ir.IRBuilder, list[ir.Value]], ir.Value]] = {
    "neg": lambda b, xs: b.fneg(xs[0]),
    "rsqrt": lambda b, xs: b.fdiv(_one(xs[0]), call_unary(b, "sqrt", xs[0])),
    "rcp_rn": lambda b, xs: b.fdiv(_one(xs[0]), xs[0]),
    "div_rn": lambda b, xs: b.fdiv(*xs),
    "fdiv_ieee": lambda b, xs: b.fdiv(*xs),
    "fast_dividef": lambda b, xs: b.fdiv(*xs),
    "saturatef": lambda b, xs: _saturate(b, xs[0]),
    "exp10": lambda b, xs: _exp10(b, xs[0]),
    "rcbrt": lambda b, xs: b.fdiv(_one(xs[0]), libm(b, "cbrt", xs[0])),
    "sinpi": lambda b, xs: _float_math(b, "sin", [_times_pi_mod_2pi(b, xs[0])]),
    "cospi": lambda b, xs: _float_math(b, "cos", [_times_pi_mod_2pi(b, xs[0])]),
    "erfinv": lambda b, xs: _erfinv(b, xs[0]),
    "erfcinv": lambda b, xs: _erfinv(b, b.fsub(_one(xs[0]), xs[0])),
    "normcdf": lambda b, xs: _normcdf(b, xs[0]),
    "normcdfinv": lambda b, xs: _normcdfinv(b, xs[0]),
    "erfcx": lambda b, xs: b.fmul(
        _float_math(b, "exp", [b.fmul(xs[0], xs[0])]), libm(b, "erfc", xs[0])
    ),
    "ldexp": lambda b, xs: _ldexp(b, xs[0], xs[1]),
}


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


def weight(fn: str) -> int:
    """Per-element cost estimate used to decide whether to recompute or materialize."""
    row = math_table.MATH.get(fn)
    return 1 if row is not None and row.cheap else TRANSCENDENTAL_WEIGHT
