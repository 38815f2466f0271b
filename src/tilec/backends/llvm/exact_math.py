"""Math functions whose result is exact, spelled the same for every target: the integer
functions of tl.math (abs, neg, not, mulhi, umulhi, popc, brev, clz, ffs) and the float class
tests (isnan, isinf, isfinite, signbit), and ilogb, the exponent of a float as an integer.

Plain instructions and target-independent intrinsics only, so both backends call these as they
are (cuda/math_functions.py on native values, cpu/mathops.py on fp16/bf16 widened to fp32).
"""

from __future__ import annotations

import math

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.types import Kind, ScalarType
from . import intrinsics as I
from . import types as T

PREDICATES = ("isnan", "isinf", "isfinite", "signbit")


def integer(b: ir.IRBuilder, fn: str, args: list[ir.Value], elem: ScalarType) -> ir.Value:
    """``fn`` of integers of type ``elem`` (two's complement; mulhi of signed ones signed)."""
    x = args[0]
    ty = x.type
    signed = elem.kind is Kind.SINT
    if fn == "neg":
        return b.neg(x)
    if fn == "not":
        return b.not_(x)
    if fn == "abs":
        return b.select(b.icmp_signed("<", x, ir.Constant(ty, 0)), b.neg(x), x) if signed else x
    if fn in ("umulhi", "mulhi"):
        wide = ir.IntType(elem.bits * 2)
        ext = b.sext if fn == "mulhi" and signed else b.zext
        prod = b.mul(ext(x, wide), ext(args[1], wide))
        return b.trunc(b.lshr(prod, ir.Constant(wide, elem.bits)), ty)
    if fn == "popc":
        return I.call(b, "ctpop", [x])
    if fn == "brev":
        return I.call(b, "bitreverse", [x])
    if fn == "clz":
        return I.call(b, "ctlz", [x, ir.Constant(T.i1, 0)])
    if fn == "ffs":  # the 1-based position of the lowest set bit, 0 when none
        tz = I.call(b, "cttz", [x, ir.Constant(T.i1, 0)])
        one = b.add(tz, ir.Constant(ty, 1))
        return b.select(b.icmp_unsigned("==", x, ir.Constant(ty, 0)), ir.Constant(ty, 0), one)
    raise UnsupportedFeature(f"math function {fn} on {elem}")


def predicate(b: ir.IRBuilder, fn: str, x: ir.Value) -> ir.Value:
    """The class test ``fn`` (one of PREDICATES) of the float ``x``, as i1."""
    if fn == "isnan":
        return b.fcmp_unordered("uno", x, x)
    if fn == "signbit":
        ity = ir.IntType(T.bit_width(x.type))
        return b.icmp_signed("<", b.bitcast(x, ity), ir.Constant(ity, 0))
    mag = I.call(b, "fabs", [x])
    inf = ir.Constant(x.type, math.inf)
    if fn == "isinf":
        return b.fcmp_ordered("==", mag, inf)
    return b.fcmp_ordered("<", mag, inf)


_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def ilogb(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """The unbiased exponent of the fp32/fp64 ``x`` as i32, from its bits: subnormals by their
    leading zeros; 0 and NaN give INT_MIN and +-inf INT_MAX, as CUDA's libdevice (C leaves
    NaN's result to the platform: INT_MIN on x86 glibc and macOS, INT_MAX on Windows and
    AArch64 glibc)."""
    width = T.bit_width(x.type)
    mant = 23 if width == 32 else 52
    bias = 127 if width == 32 else 1023
    ity = ir.IntType(width)

    def c(v: int) -> ir.Constant:
        return ir.Constant(ity, v)

    mag = b.and_(b.bitcast(x, ity), c((1 << (width - 1)) - 1))
    field = b.lshr(mag, c(mant))
    normal = b.sub(field, c(bias))
    leading = I.call(b, "ctlz", [mag, ir.Constant(T.i1, 0)])
    subnormal = b.sub(c(width - 1 - (bias + mant - 1)), leading)  # mag's top bit, scaled
    exp = b.select(b.icmp_unsigned("==", field, c(0)), subnormal, normal)
    top = (1 << (width - 1 - mant)) - 1  # the all-ones exponent field: inf or NaN
    special = b.icmp_unsigned("==", field, c(top))
    is_inf = b.icmp_unsigned("==", mag, c(top << mant))
    edge = b.select(is_inf, c(_INT_MAX), c(_INT_MIN))  # INT_MIN: NaN (and 0, below)
    out = b.select(b.or_(special, b.icmp_unsigned("==", mag, c(0))), edge, exp)
    return out if width == 32 else b.trunc(out, T.i32)
