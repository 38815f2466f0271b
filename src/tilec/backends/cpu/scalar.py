"""Elementwise operations on single LLVM values: the code one element of a tile (or a scalar) gets.

Values use their storage representation (fp16 as ``half``, bf16 as ``i16``); fp16/bf16 arithmetic
extends to fp32, computes, and rounds back to nearest-even after every op, as Triton does.
Integer division by zero and oversized shifts are defined (no trap, no poison): see ``_divide``.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.ops import BinaryKind, CompareKind
from ...ir.types import Element, Kind, PointerType, ScalarType
from ..llvm import types as T
from ..llvm.intrinsics import call_same, call_unary


def to_compute(b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
    """Widen fp16/bf16 storage values to fp32; other values are returned unchanged."""
    if t.name == "fp16":
        return b.fpext(x, T.f32)
    if t.name == "bf16":
        return b.bitcast(b.shl(b.zext(x, T.i32), ir.Constant(T.i32, 16)), T.f32)
    return x


def from_compute(b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: str = "rtne") -> ir.Value:
    """Round a compute value (fp32 or fp64) back to ``t``'s storage type."""
    if t.name == "bf16":
        if x.type != T.f32:
            x = _narrow(b, x, T.f32, rounding)
        return _f32_to_bf16(b, x, rounding)
    want = T.storage_type(t)
    if x.type == want:
        return x
    return _narrow(b, x, want, rounding)


def _narrow(b: ir.IRBuilder, x: ir.Value, to: ir.Type, rounding: str) -> ir.Value:
    r = b.fptrunc(x, to)
    if rounding != "rtz":
        return r
    # round toward zero: step one ulp toward zero where nearest-even rounded away from zero
    width = {16: T.i16, 32: T.i32, 64: T.i64}[_fbits(to)]
    ax = call_unary(b, "fabs", x)
    ar = call_unary(b, "fabs", b.fpext(r, x.type))
    too_big = b.fcmp_ordered(">", ar, ax)
    bits = b.bitcast(r, width)
    return b.bitcast(b.select(too_big, b.sub(bits, ir.Constant(width, 1)), bits), to)


def _fbits(t: ir.Type) -> int:
    return 16 if isinstance(t, ir.HalfType) else 32 if isinstance(t, ir.FloatType) else 64


def _f32_to_bf16(b: ir.IRBuilder, x: ir.Value, rounding: str) -> ir.Value:
    bits = b.bitcast(x, T.i32)
    if rounding == "rtz":
        rounded = b.lshr(bits, ir.Constant(T.i32, 16))
    else:
        lsb = b.and_(b.lshr(bits, ir.Constant(T.i32, 16)), ir.Constant(T.i32, 1))
        biased = b.add(b.add(bits, ir.Constant(T.i32, 0x7FFF)), lsb)
        rounded = b.lshr(biased, ir.Constant(T.i32, 16))
    quiet = b.or_(b.lshr(bits, ir.Constant(T.i32, 16)), ir.Constant(T.i32, 0x40))
    nan = b.fcmp_unordered("uno", x, x)
    return b.trunc(b.select(nan, quiet, rounded), T.i16)


def constant(t: Element, value: bool | int | float) -> ir.Constant:
    """A constant in storage representation."""
    if isinstance(t, ScalarType) and t.name == "bf16":
        return ir.Constant(T.i16, T.f32_to_bf16_bits(float(value)))
    if isinstance(t, PointerType):
        return ir.Constant(T.ptr, None)
    return T.const(T.storage_type(t), value)


def _is_signed(t: ScalarType) -> bool:
    return t.kind is Kind.SINT


# -- binary -----------------------------------------------------------------------------------


def binary(
    b: ir.IRBuilder,
    kind: BinaryKind,
    t: ScalarType,
    x: ir.Value,
    y: ir.Value,
    propagate_nan: bool = False,
    via_select: bool = False,
) -> ir.Value:
    """``x kind y``. ``via_select`` spells float min/max as compares and selects: LLVM 22's
    vectorizer miscompiles loops holding several minnum/maxnum reductions at once."""
    if t.is_floating():
        cx, cy = to_compute(b, x, t), to_compute(b, y, t)
        if via_select and kind in (BinaryKind.MIN, BinaryKind.MAX):
            return from_compute(b, _select_minmax(b, kind, cx, cy, propagate_nan), t)
        return from_compute(b, _float_binary(b, kind, cx, cy, propagate_nan), t)
    return _int_binary(b, kind, t, x, y)


def _select_minmax(
    b: ir.IRBuilder, kind: BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool
) -> ir.Value:
    better = b.fcmp_ordered("<" if kind is BinaryKind.MIN else ">", y, x)
    r = b.select(better, y, x)
    if propagate_nan:
        return b.select(b.fcmp_unordered("uno", x, y), b.fadd(x, y), r)
    return b.select(b.fcmp_unordered("uno", x, x), y, r)


def _float_binary(
    b: ir.IRBuilder, kind: BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool
) -> ir.Value:
    if kind is BinaryKind.ADD:
        return b.fadd(x, y)
    if kind is BinaryKind.SUB:
        return b.fsub(x, y)
    if kind is BinaryKind.MUL:
        return b.fmul(x, y)
    if kind is BinaryKind.DIV:
        return b.fdiv(x, y)
    if kind is BinaryKind.REM:
        return b.frem(x, y)
    if kind in (BinaryKind.MIN, BinaryKind.MAX):
        base = (
            ("minimum" if kind is BinaryKind.MIN else "maximum")
            if propagate_nan
            else ("minnum" if kind is BinaryKind.MIN else "maxnum")
        )
        return call_same(b, base, x, y)
    raise UnsupportedFeature(f"binary {kind.value} on floating-point values")


def _int_binary(
    b: ir.IRBuilder, kind: BinaryKind, t: ScalarType, x: ir.Value, y: ir.Value
) -> ir.Value:
    signed = _is_signed(t)
    simple = {
        BinaryKind.ADD: b.add,
        BinaryKind.SUB: b.sub,
        BinaryKind.MUL: b.mul,
        BinaryKind.AND: b.and_,
        BinaryKind.OR: b.or_,
        BinaryKind.XOR: b.xor,
    }
    if kind in simple:
        return simple[kind](x, y)
    if kind in (BinaryKind.DIV, BinaryKind.REM):
        return _divide(b, kind, signed, x, y)
    if kind in (BinaryKind.SHL, BinaryKind.SHR):
        return _shift(b, kind, signed, x, y)
    if kind in (BinaryKind.MIN, BinaryKind.MAX):
        op = "<" if kind is BinaryKind.MIN else ">"
        cmp = b.icmp_signed(op, x, y) if signed else b.icmp_unsigned(op, x, y)
        return b.select(cmp, x, y)
    raise UnsupportedFeature(f"binary {kind.value} on integers")


def _divide(b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value) -> ir.Value:
    """C division without traps, defined like NVIDIA GPUs: x / 0 = -1 (all ones), x % 0 = x;
    INT_MIN / -1 wraps to INT_MIN with remainder 0."""
    t = x.type
    zero = ir.Constant(t, 0)
    one = ir.Constant(t, 1)
    by_zero = b.icmp_unsigned("==", y, zero)
    bad = by_zero
    by_m1 = None
    if signed and t.width > 1:
        by_m1 = b.icmp_signed("==", y, ir.Constant(t, -1))
        bad = b.or_(bad, by_m1)
    safe = b.select(bad, one, y)
    if kind is BinaryKind.DIV:
        r = b.sdiv(x, safe) if signed else b.udiv(x, safe)
        if by_m1 is not None:
            r = b.select(by_m1, b.sub(zero, x), r)
        return b.select(by_zero, ir.Constant(t, -1), r)
    r = b.srem(x, safe) if signed else b.urem(x, safe)
    if by_m1 is not None:
        r = b.select(by_m1, zero, r)
    return b.select(by_zero, x, r)


def _shift(b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value) -> ir.Value:
    """Shifts by >= the bit width give 0 (or the sign fill for arithmetic right shifts)."""
    t = x.type
    width = ir.Constant(t, t.width)
    oob = b.icmp_unsigned(">=", y, width)
    if kind is BinaryKind.SHR and signed:
        return b.ashr(x, b.select(oob, ir.Constant(t, t.width - 1), y))
    amount = b.select(oob, ir.Constant(t, 0), y)
    r = b.shl(x, amount) if kind is BinaryKind.SHL else b.lshr(x, amount)
    return b.select(oob, ir.Constant(t, 0), r)


# -- compare, select, casts -------------------------------------------------------------------

_ICMP = {
    CompareKind.EQ: "==",
    CompareKind.NE: "!=",
    CompareKind.LT: "<",
    CompareKind.LE: "<=",
    CompareKind.GT: ">",
    CompareKind.GE: ">=",
}


def compare(b: ir.IRBuilder, kind: CompareKind, t: Element, x: ir.Value, y: ir.Value) -> ir.Value:
    op = _ICMP[kind]
    if isinstance(t, ScalarType) and t.is_floating():
        cx, cy = to_compute(b, x, t), to_compute(b, y, t)
        if kind is CompareKind.NE:
            return b.fcmp_unordered("!=", cx, cy)
        return b.fcmp_ordered(op, cx, cy)
    if isinstance(t, ScalarType) and _is_signed(t):
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def cast(
    b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element, rounding: str = "rtne"
) -> ir.Value:
    if src == dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _pointer_cast(b, x, src, dst)
    assert isinstance(src, ScalarType) and isinstance(dst, ScalarType)
    if dst.is_bool():
        if src.is_floating():
            return b.fcmp_unordered(
                "!=", to_compute(b, x, src), ir.Constant(T.compute_type(src), 0.0)
            )
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if src.is_floating() and dst.is_floating():
        cx = to_compute(b, x, src)
        want = T.compute_type(dst)
        if cx.type != want and _fbits(want) > _fbits(cx.type):
            cx = b.fpext(cx, want)
        return from_compute(b, cx, dst, rounding)
    if src.is_floating():
        return _float_to_int(b, to_compute(b, x, src), dst)
    if dst.is_floating():
        want = T.compute_type(dst)
        f = b.sitofp(x, want) if _is_signed(src) else b.uitofp(x, want)
        return from_compute(b, f, dst, rounding)
    return _int_resize(b, x, src, dst)


def _int_resize(b: ir.IRBuilder, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
    to = T.storage_type(dst)
    if src.bits == dst.bits:
        return x
    if src.bits > dst.bits:
        return b.trunc(x, to)
    return b.sext(x, to) if _is_signed(src) else b.zext(x, to)


def _float_to_int(b: ir.IRBuilder, x: ir.Value, dst: ScalarType) -> ir.Value:
    """Saturating conversion (NaN gives 0, out-of-range values clamp), as on NVIDIA GPUs.

    Clamped in the float domain, then a plain fptosi/fptoui: LLVM's ``fptosi.sat`` would be
    scalarized on x86 and block vectorization."""
    to = T.storage_type(dst)
    signed = _is_signed(dst)
    lo = -(2.0 ** (dst.bits - 1)) if signed else 0.0
    top = 2.0 ** (dst.bits - 1) if signed else 2.0**dst.bits  # first value out of range
    hi = _largest_below(top, x.type)
    v = b.select(b.fcmp_ordered("<", x, ir.Constant(x.type, lo)), ir.Constant(x.type, lo), x)
    v = b.select(b.fcmp_ordered(">", v, ir.Constant(x.type, hi)), ir.Constant(x.type, hi), v)
    v = b.select(b.fcmp_unordered("uno", x, x), ir.Constant(x.type, 0.0), v)
    r = b.fptosi(v, to) if signed else b.fptoui(v, to)
    too_big = b.fcmp_ordered(">=", x, ir.Constant(x.type, top))
    return b.select(too_big, ir.Constant(to, (1 << (dst.bits - 1 if signed else dst.bits)) - 1), r)


def _largest_below(top: float, t: ir.Type) -> float:
    """The largest value of float type ``t`` strictly below the power of two ``top``."""
    mantissa = 24 if t == T.f32 else 53
    return top - top / 2.0**mantissa


def _pointer_cast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        assert isinstance(dst, ScalarType)
        return b.ptrtoint(x, T.storage_type(dst))
    assert isinstance(src, ScalarType)
    wide = _int_resize(b, x, src, ScalarType("u64", Kind.UINT, 64)) if src.bits < 64 else x
    return b.inttoptr(wide, T.ptr)


def bitcast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    to = T.storage_type(dst)
    if x.type == to:
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, to)
    if isinstance(dst, PointerType):
        return b.inttoptr(x, to)
    return b.bitcast(x, to)
