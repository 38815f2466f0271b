"""Element semantics written once for every LLVM target (docs/language/semantics.md).

What one element of an integer or float op computes, including every case LLVM leaves undefined
(division by zero, oversized shifts, float → int out of range, signed zeros and NaN in min/max,
narrowing float conversions). Only plain instructions are used, so the result is the same bits
on every target and LLVM cannot fold a poison value into something else. The backends differ only
in how they hold values (the CPU keeps bf16 as i16 and converts halves with integer code, so it
never needs a runtime helper) and in a few calls; cpu/scalar.py and cuda/scalar_ops.py hold those.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.ops import BinaryKind, CompareKind, Rounding
from ...ir.types import Kind, ScalarType
from . import types as T

_SIMPLE_INT: dict[BinaryKind, Callable[[ir.IRBuilder], Callable[..., ir.Value]]] = {
    BinaryKind.ADD: lambda b: b.add,
    BinaryKind.SUB: lambda b: b.sub,
    BinaryKind.MUL: lambda b: b.mul,
    BinaryKind.AND: lambda b: b.and_,
    BinaryKind.OR: lambda b: b.or_,
    BinaryKind.XOR: lambda b: b.xor,
}


def int_binary(
    b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value
) -> ir.Value:
    """``x kind y`` on two's-complement integers (wrap-around, never poison)."""
    if kind in _SIMPLE_INT:
        return _SIMPLE_INT[kind](b)(x, y)
    if kind in (BinaryKind.DIV, BinaryKind.REM):
        return divide(b, kind, signed, x, y)
    if kind in (BinaryKind.SHL, BinaryKind.SHR):
        return shift(b, kind, signed, x, y)
    if kind in (BinaryKind.MIN, BinaryKind.MAX):
        op = "<" if kind is BinaryKind.MIN else ">"
        cmp = b.icmp_signed(op, x, y) if signed else b.icmp_unsigned(op, x, y)
        return b.select(cmp, x, y)
    raise UnsupportedFeature(f"binary {kind.value} on integers")


def divide(b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value) -> ir.Value:
    """C division (truncating; the remainder takes the dividend's sign) made total, as NVIDIA
    GPUs compute it: x / 0 is all ones (-1, or the unsigned maximum), x % 0 is x, and
    INT_MIN / -1 wraps to INT_MIN with remainder 0. The divisor LLVM sees is never 0 or -1."""
    t = x.type
    zero = ir.Constant(t, 0)
    by_zero = b.icmp_unsigned("==", y, zero)
    bad = by_zero
    by_m1 = None
    if signed and t.width > 1:
        by_m1 = b.icmp_signed("==", y, ir.Constant(t, -1))
        bad = b.or_(bad, by_m1)
    safe = b.select(bad, ir.Constant(t, 1), y)
    if kind is BinaryKind.DIV:
        r = b.sdiv(x, safe) if signed else b.udiv(x, safe)
        if by_m1 is not None:
            r = b.select(by_m1, b.sub(zero, x), r)
        return b.select(by_zero, ir.Constant(t, -1), r)
    r = b.srem(x, safe) if signed else b.urem(x, safe)
    if by_m1 is not None:
        r = b.select(by_m1, zero, r)
    return b.select(by_zero, x, r)


def shift(b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value) -> ir.Value:
    """The amount is read as unsigned; amounts >= the width clamp to the width, as PTX ``shl``/
    ``shr`` do: 0 for left and logical right shifts, the sign fill for arithmetic right shifts
    (so a negative amount, a huge unsigned one, gives that too)."""
    t = x.type
    if t.width > 32:
        # clamp first: NVPTX folds ``select(y >= 64, 0, shl(x, y))`` into PTX's clamping shl,
        # whose amount is 32 bits, and drops the high half of y (2**32 << 1 would shift by 0)
        width = ir.Constant(t, t.width)
        y = b.select(b.icmp_unsigned(">", y, width), width, y)
    oob = b.icmp_unsigned(">=", y, ir.Constant(t, t.width))
    if kind is BinaryKind.SHR and signed:
        return b.ashr(x, b.select(oob, ir.Constant(t, t.width - 1), y))
    amount = b.select(oob, ir.Constant(t, 0), y)
    r = b.shl(x, amount) if kind is BinaryKind.SHL else b.lshr(x, amount)
    return b.select(oob, ir.Constant(t, 0), r)


def float_minmax(
    b: ir.IRBuilder, kind: BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool
) -> ir.Value:
    """min/max with -0.0 < +0.0. Without ``propagate_nan`` a NaN operand yields the other one
    (minNum, PTX ``min.f32``); with it any NaN operand yields the quiet NaN (``min.NaN.f32``).

    Spelled as compares and selects: LLVM's minnum leaves the sign of a zero result open, and
    LLVM 22's vectorizer miscompiles loops holding several minnum/maxnum reductions."""
    is_min = kind is BinaryKind.MIN
    r = b.select(b.fcmp_ordered("<" if is_min else ">", y, x), y, x)
    # equal operands differ only as +0/-0: OR of the bits picks -0 for min, AND +0 for max
    ity = ir.IntType(T.bit_width(x.type))
    xb, yb = b.bitcast(x, ity), b.bitcast(y, ity)
    both = b.bitcast(b.or_(xb, yb) if is_min else b.and_(xb, yb), x.type)
    r = b.select(b.fcmp_ordered("==", x, y), both, r)
    if propagate_nan:
        return b.select(b.fcmp_unordered("uno", x, y), ir.Constant(x.type, math.nan), r)
    return b.select(b.fcmp_unordered("uno", x, x), y, r)


_ICMP = {
    CompareKind.EQ: "==",
    CompareKind.NE: "!=",
    CompareKind.LT: "<",
    CompareKind.LE: "<=",
    CompareKind.GT: ">",
    CompareKind.GE: ">=",
}


def compare(
    b: ir.IRBuilder, kind: CompareKind, kind_of: Kind, x: ir.Value, y: ir.Value
) -> ir.Value:
    """Floats compare ordered (false on NaN) except ``!=`` (true on NaN); integers by signedness
    (pointers compare unsigned)."""
    op = _ICMP[kind]
    if kind_of is Kind.FLOAT:
        zero = _zero_side(x, y) if kind in (CompareKind.EQ, CompareKind.NE) else None
        if zero is not None and _is_fpext(zero):  # a 16-bit float compared in fp32: LLVM
            zero = zero.operands[0]  # shrinks the compare back to 16 bits (see below)
        if zero is not None and T.bit_width(zero.type) == 16:  # ==/!= 0 through the bits
            nonzero = float_is_nonzero(b, zero)  # (see float_is_nonzero)
            return nonzero if kind is CompareKind.NE else b.not_(nonzero)
        if kind is CompareKind.NE:
            return b.fcmp_unordered(op, x, y)
        return b.fcmp_ordered(op, x, y)
    if kind_of is Kind.SINT:
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def _is_fpext(v: ir.Value) -> bool:
    return isinstance(v, ir.CastInstr) and v.opname == "fpext"


def _zero_side(x: ir.Value, y: ir.Value) -> ir.Value | None:
    """The operand compared with a constant zero, if one side is that constant."""
    for const, other in ((y, x), (x, y)):
        if isinstance(const, ir.Constant) and const.constant == 0:
            return other
    return None


def float_is_nonzero(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``x != 0`` (true for NaN, false for -0.0) on the bits below the sign. For 16-bit floats
    LLVM 22 folds ``fcmp une (bitcast half to bfloat), 0`` into an integer compare built with a
    constant of the float type, an assertion that aborts the process."""
    it = ir.IntType(T.bit_width(x.type))
    magnitude = b.and_(b.bitcast(x, it), ir.Constant(it, (1 << (it.width - 1)) - 1))
    return b.icmp_unsigned("!=", magnitude, ir.Constant(it, 0))


def is_nonzero(b: ir.IRBuilder, x: ir.Value, floating: bool) -> ir.Value:
    """``x != 0`` as i1, a cast to bool: integers by their bits, floats by
    :func:`float_is_nonzero`."""
    if floating:
        return float_is_nonzero(b, x)
    return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))


def int_resize(b: ir.IRBuilder, x: ir.Value, signed: bool, to: ir.IntType) -> ir.Value:
    """An integer at the width of ``to``: truncated, or extended by its signedness."""
    if x.type.width == to.width:
        return x
    if x.type.width > to.width:
        return b.trunc(x, to)
    return b.sext(x, to) if signed else b.zext(x, to)


def float_to_int(b: ir.IRBuilder, x: ir.Value, dst: ScalarType) -> ir.Value:
    """Round toward zero and saturate to ``dst``'s range, NaN → 0 (PTX ``cvt.rzi`` semantics,
    applied at every width). Clamped in the float domain before a plain fptosi/fptoui: LLVM's
    ``fptosi.sat`` is scalarized on x86 and would block vectorization."""
    if T.bit_width(x.type) < 32:
        x = b.fpext(x, T.f32)
    to = ir.IntType(dst.bits)
    signed = dst.kind is Kind.SINT
    lo = -(2.0 ** (dst.bits - 1)) if signed else 0.0
    top = 2.0 ** (dst.bits - 1) if signed else 2.0**dst.bits  # first value out of range
    hi = top - top / 2.0 ** (24 if x.type == T.f32 else 53)  # the largest float below top
    v = b.select(b.fcmp_ordered("<", x, ir.Constant(x.type, lo)), ir.Constant(x.type, lo), x)
    v = b.select(b.fcmp_ordered(">", v, ir.Constant(x.type, hi)), ir.Constant(x.type, hi), v)
    v = b.select(b.fcmp_unordered("uno", x, x), ir.Constant(x.type, 0.0), v)
    r = b.fptosi(v, to) if signed else b.fptoui(v, to)
    too_big = b.fcmp_ordered(">=", x, ir.Constant(x.type, top))
    return b.select(too_big, ir.Constant(to, (1 << (dst.bits - 1 if signed else dst.bits)) - 1), r)


def int_to_float(b: ir.IRBuilder, x: ir.Value, signed: bool, dst: ScalarType) -> ir.Value:
    """An integer as the float that rounding to ``dst`` then finishes: fp32 for fp32 and fp16
    (exact for every integer fp16 can hold, so one rounding), fp64 for fp64 and bf16 (exact up
    to 32-bit integers; rounding fp64 → bf16 goes through :func:`f64_to_f32_odd`)."""
    wide = T.f64 if dst.name in ("fp64", "bf16") else T.f32
    if x.type.width == 1:  # a select of the two constants: NVPTX's selp + cvt.rn.f32.u32 for
        # uitofp i1 whose bits are then or-ed into an integer read 0 on an H200 (ptxas)
        one = -1.0 if signed else 1.0
        return b.select(x, ir.Constant(wide, one), ir.Constant(wide, 0.0))
    if signed:
        return b.sitofp(x, wide)
    if x.type.width < 64:
        return b.uitofp(x, wide)
    # u64 without uitofp: LLVM 22's SLP vectorizer narrows uitofp(sext i32 -> i64) to uitofp
    # of the i32, reading -5 as 2**32 - 5. From 2**63 on, halve with the lost bit kept sticky
    # (x >> 1 | x & 1): one rounding, then an exact doubling.
    one = ir.Constant(x.type, 1)
    half = b.or_(b.lshr(x, one), b.and_(x, one))
    halved = b.sitofp(half, wide)
    big = b.fadd(halved, halved)
    return b.select(b.icmp_signed("<", x, ir.Constant(x.type, 0)), big, b.sitofp(x, wide))


# -- narrowing float conversions, exact to the bit -------------------------------------------


def narrow(
    b: ir.IRBuilder, x: ir.Value, to: ir.Type, rounding: Rounding = Rounding.RTNE
) -> ir.Value:
    """``x`` (fp32 or fp64) rounded once to the narrower native float type ``to``, to
    nearest-even or toward zero (``Rounding.RTZ``). fp64 → fp16/bf16 goes through fp32
    rounded to odd: a direct fptrunc may be lowered as two roundings (NVPTX does)."""
    if x.type == to:
        return x
    if x.type == T.f64 and T.bit_width(to) == 16:
        x = f64_to_f32_before_16(b, x, rounding)
    return narrow_rtz(b, x, to) if rounding is Rounding.RTZ else b.fptrunc(x, to)


def f64_to_f32_before_16(
    b: ir.IRBuilder, x: ir.Value, rounding: Rounding = Rounding.RTNE
) -> ir.Value:
    """f64 → f32 such that rounding the result to fp16 or bf16 (by ``rounding``) is the one
    rounding of ``x``: toward zero for RTZ, else to odd (:func:`f64_to_f32_odd`)."""
    return narrow_rtz(b, x, T.f32) if rounding is Rounding.RTZ else f64_to_f32_odd(b, x)


def narrow_rtz(b: ir.IRBuilder, x: ir.Value, to: ir.Type) -> ir.Value:
    """``x`` rounded toward zero to the narrower native type ``to``: nearest-even, then one ulp
    back toward zero where that rounded away from zero (an overflow to inf becomes the maximum)."""
    r = b.fptrunc(x, to)
    ity = ir.IntType(T.bit_width(to))
    away = b.fcmp_ordered(">", _fabs(b, b.fpext(r, x.type)), _fabs(b, x))
    bits = b.bitcast(r, ity)
    return b.bitcast(b.select(away, b.sub(bits, ir.Constant(ity, 1)), bits), to)


def f64_to_f32_odd(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """f64 → f32 rounded to odd (toward zero, low bit set when inexact): rounding that result
    again to fp16 or bf16 gives the correctly rounded narrow value (f32 keeps more than twice
    their precision plus two bits), with no double-rounding error."""
    r = narrow_rtz(b, x, T.f32)
    inexact = b.fcmp_unordered("!=", b.fpext(r, T.f64), x)
    bits = b.bitcast(r, T.i32)
    odd = b.or_(bits, b.zext(inexact, T.i32))
    return b.bitcast(odd, T.f32)


def fma_to_odd(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    """``x * y + z`` of fp16/bf16 numbers (held as fp32) in f64, rounded to odd: the product is
    exact in f64 and the sum's error is recovered exactly (TwoSum), so narrowing the result to
    a 16-bit float is one rounding, as a native ``fma.rn.f16`` gives. Rounding the fp32 fma
    instead may round twice (fp16 1.1064453125 * -0.02107238769 + 0.398193359375)."""
    p = b.fmul(b.fpext(x, T.f64), b.fpext(y, T.f64))
    z = b.fpext(z, T.f64)
    s = b.fadd(p, z)
    sp = b.fsub(s, z)
    err = b.fadd(b.fsub(p, sp), b.fsub(z, b.fsub(s, sp)))
    inexact = b.fcmp_ordered("!=", err, ir.Constant(T.f64, 0.0))  # NaN and inf stay as they are
    # s rounded away from zero where the error has the other sign: step one ulp back
    away = b.and_(inexact, b.xor(_is_negative(b, s), _is_negative(b, err)))
    toward_zero = b.sub(b.bitcast(s, T.i64), b.zext(away, T.i64))
    return b.bitcast(b.or_(toward_zero, b.zext(inexact, T.i64)), T.f64)


def _is_negative(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.icmp_signed("<", b.bitcast(x, T.i64), ir.Constant(T.i64, 0))


def f32_to_bf16_bits(b: ir.IRBuilder, x: ir.Value, rounding: Rounding = Rounding.RTNE) -> ir.Value:
    """fp32 → bf16 bits (i16): nearest-even or toward zero; a NaN stays a NaN (made quiet).
    The IR twin of :func:`tilec.backends.float_bits.f32_to_bf16_bits`."""
    bits = b.bitcast(x, T.i32)
    if rounding is Rounding.RTZ:  # dropping the low half: the largest finite fp32 stays finite
        rounded = b.lshr(bits, ir.Constant(T.i32, 16))
    else:
        lsb = b.and_(b.lshr(bits, ir.Constant(T.i32, 16)), ir.Constant(T.i32, 1))
        biased = b.add(b.add(bits, ir.Constant(T.i32, 0x7FFF)), lsb)
        rounded = b.lshr(biased, ir.Constant(T.i32, 16))
    quiet = b.or_(b.lshr(bits, ir.Constant(T.i32, 16)), ir.Constant(T.i32, 0x40))
    nan = b.fcmp_unordered("uno", x, x)
    return b.trunc(b.select(nan, quiet, rounded), T.i16)


def f32_to_f16_bits(b: ir.IRBuilder, x: ir.Value, rounding: Rounding = Rounding.RTNE) -> ir.Value:
    """fp32 → fp16 bits (i16) in integer code, nearest-even or toward zero, subnormals and
    overflow included; a NaN keeps its sign and top payload bits and is made quiet."""
    c = lambda v: ir.Constant(T.i32, v)  # noqa: E731
    bits = b.bitcast(x, T.i32)
    sign = b.and_(b.lshr(bits, c(16)), c(0x8000))
    a = b.and_(bits, c(0x7FFFFFFF))
    rtz = rounding is Rounding.RTZ
    # normal range: rebias the exponent, drop 13 mantissa bits
    rebased = b.sub(a, c(112 << 23))
    if not rtz:
        rebased = b.add(b.add(rebased, c(0xFFF)), b.and_(b.lshr(a, c(13)), c(1)))
    normal = b.lshr(rebased, c(13))
    # below 2**-14: shift the full significand right by 126 - exponent (14..31)
    exp = b.lshr(a, c(23))
    amount = b.sub(c(126), exp)
    amount = b.select(b.icmp_unsigned(">", amount, c(31)), c(31), amount)
    sig = b.or_(b.and_(a, c(0x7FFFFF)), c(0x800000))
    sub = b.lshr(sig, amount)
    if not rtz:
        rest = b.and_(sig, b.sub(b.shl(c(1), amount), c(1)))
        half = b.shl(c(1), b.sub(amount, c(1)))
        up = b.or_(
            b.icmp_unsigned(">", rest, half),
            b.and_(
                b.icmp_unsigned("==", rest, half), b.icmp_unsigned("!=", b.and_(sub, c(1)), c(0))
            ),
        )
        sub = b.add(sub, b.zext(up, T.i32))
    r = b.select(b.icmp_unsigned("<", a, c(0x38800000)), sub, normal)
    overflow = c(0x7BFF if rtz else 0x7C00)
    limit = 0x47800000 if rtz else 0x477FF000  # first magnitude that leaves the finite range
    r = b.select(b.icmp_unsigned(">=", a, c(limit)), overflow, r)
    r = b.select(b.icmp_unsigned("==", a, c(0x7F800000)), c(0x7C00), r)
    nan = b.or_(c(0x7E00), b.and_(b.lshr(a, c(13)), c(0x3FF)))
    r = b.select(b.icmp_unsigned(">", a, c(0x7F800000)), nan, r)
    return b.trunc(b.or_(sign, r), T.i16)


def f16_bits_to_f32(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
    """fp16 bits (i16) → fp32, exactly, in integer code (subnormals, inf and NaN payloads kept)."""
    c = lambda v: ir.Constant(T.i32, v)  # noqa: E731
    w = b.zext(h, T.i32)
    sign = b.shl(b.and_(w, c(0x8000)), c(16))
    exp = b.and_(b.lshr(w, c(10)), c(0x1F))
    man = b.and_(w, c(0x3FF))
    normal = b.or_(b.shl(b.add(exp, c(112)), c(23)), b.shl(man, c(13)))
    special = b.or_(c(0x7F800000), b.shl(man, c(13)))
    tiny = b.fmul(b.uitofp(man, T.f32), ir.Constant(T.f32, 2.0**-24))  # exact: man < 2**10
    r = b.select(b.icmp_unsigned("==", exp, c(0x1F)), special, normal)
    r = b.select(b.icmp_unsigned("==", exp, c(0)), b.bitcast(tiny, T.i32), r)
    return b.bitcast(b.or_(r, sign), T.f32)


def bf16_bits_to_f32(b: ir.IRBuilder, h: ir.Value) -> ir.Value:
    """bf16 bits (i16) → fp32: the upper half of the fp32 pattern, exactly."""
    return b.bitcast(b.shl(b.zext(h, T.i32), ir.Constant(T.i32, 16)), T.f32)


def _fabs(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ity = ir.IntType(T.bit_width(x.type))
    mask = ir.Constant(ity, (1 << (ity.width - 1)) - 1)
    return b.bitcast(b.and_(b.bitcast(x, ity), mask), x.type)
