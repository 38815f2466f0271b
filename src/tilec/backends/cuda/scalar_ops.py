"""One-register arithmetic: binary operators, comparisons, casts and selects on LLVM values.

The tile rules apply these to every register of a tile; combine regions of reductions use them
on single values. Signedness comes from the tile IR element type, as in the IR's contract.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.types import Element, Kind, PointerType, ScalarType
from . import intrinsics as intr
from .types import F32, llvm_type

_INT_BIN = {
    O.BinaryKind.ADD: "add", O.BinaryKind.SUB: "sub", O.BinaryKind.MUL: "mul",
    O.BinaryKind.AND: "and_", O.BinaryKind.OR: "or_", O.BinaryKind.XOR: "xor",
    O.BinaryKind.SHL: "shl",
}  # fmt: skip
_FLOAT_BIN = {
    O.BinaryKind.ADD: "fadd", O.BinaryKind.SUB: "fsub", O.BinaryKind.MUL: "fmul",
    O.BinaryKind.DIV: "fdiv", O.BinaryKind.REM: "frem",
}  # fmt: skip


def binary(
    b: ir.IRBuilder,
    kind: O.BinaryKind,
    x: ir.Value,
    y: ir.Value,
    elem: ScalarType,
    propagate_nan: bool = False,
    fast: bool = False,
) -> ir.Value:
    if elem.is_floating():
        return _float_binary(b, kind, x, y, propagate_nan, fast)
    signed = elem.kind is Kind.SINT
    if kind in _INT_BIN:
        return getattr(b, _INT_BIN[kind])(x, y)
    if kind is O.BinaryKind.DIV:
        return b.sdiv(x, y) if signed else b.udiv(x, y)
    if kind is O.BinaryKind.REM:
        return b.srem(x, y) if signed else b.urem(x, y)
    if kind is O.BinaryKind.SHR:
        return b.ashr(x, y) if signed else b.lshr(x, y)
    if kind in (O.BinaryKind.MIN, O.BinaryKind.MAX):
        op = "<" if kind is O.BinaryKind.MIN else ">"
        cmp = b.icmp_signed(op, x, y) if signed else b.icmp_unsigned(op, x, y)
        return b.select(cmp, x, y)
    raise UnsupportedFeature(f"integer operator {kind.value}")


def _float_binary(
    b: ir.IRBuilder, kind: O.BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool, fast: bool
) -> ir.Value:
    if kind in (O.BinaryKind.MIN, O.BinaryKind.MAX):
        base = "minimum" if propagate_nan else "minnum"
        if kind is O.BinaryKind.MAX:
            base = "maximum" if propagate_nan else "maxnum"
        if propagate_nan and str(x.type) == "double":
            return _nan_select(b, kind, x, y)
        return intr.llvm_intrinsic(b, base, [x, y])
    name = _FLOAT_BIN.get(kind)
    if name is None:
        raise UnsupportedFeature(f"float operator {kind.value}")
    flags = ("arcp", "afn") if fast and kind is O.BinaryKind.DIV and str(x.type) == "float" else ()
    return getattr(b, name)(x, y, flags=flags)


def _nan_select(b: ir.IRBuilder, kind: O.BinaryKind, x: ir.Value, y: ir.Value) -> ir.Value:
    """NaN-propagating min/max for f64 (PTX has no max.NaN.f64)."""
    base = "minnum" if kind is O.BinaryKind.MIN else "maxnum"
    m = intr.llvm_intrinsic(b, base, [x, y])
    unordered = b.fcmp_unordered("uno", x, y)
    return b.select(unordered, b.fadd(x, y), m)


_CMP = {
    O.CompareKind.EQ: "==", O.CompareKind.NE: "!=", O.CompareKind.LT: "<",
    O.CompareKind.LE: "<=", O.CompareKind.GT: ">", O.CompareKind.GE: ">=",
}  # fmt: skip


def compare(
    b: ir.IRBuilder, kind: O.CompareKind, x: ir.Value, y: ir.Value, elem: Element
) -> ir.Value:
    op = _CMP[kind]
    if isinstance(elem, PointerType):
        return b.icmp_unsigned(op, x, y)
    if elem.is_floating():
        if kind is O.CompareKind.NE:
            return b.fcmp_unordered(op, x, y)
        return b.fcmp_ordered(op, x, y)
    if elem.kind is Kind.SINT:
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def cast(
    b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element, rounding: str = "rtne"
) -> ir.Value:
    if src == dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _pointer_cast(b, x, src, dst)
    dty = llvm_type(dst)
    if dst.bits == 1:
        if src.is_floating():
            return b.fcmp_unordered("!=", x, ir.Constant(x.type, 0.0))
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if src.is_int() and dst.is_int():
        if dst.bits < src.bits:
            return b.trunc(x, dty)
        if dst.bits == src.bits:
            return x
        return b.sext(x, dty) if src.kind is Kind.SINT else b.zext(x, dty)
    if src.is_int():
        return b.sitofp(x, dty) if src.kind is Kind.SINT else b.uitofp(x, dty)
    if dst.is_int():
        return b.fptosi(x, dty) if dst.kind is Kind.SINT else b.fptoui(x, dty)
    return _float_cast(b, x, src, dst, rounding)


def _float_cast(
    b: ir.IRBuilder, x: ir.Value, src: ScalarType, dst: ScalarType, rounding: str
) -> ir.Value:
    dty = llvm_type(dst)
    if {src.name, dst.name} == {"fp16", "bf16"} or (src.name == "fp64" and dst.name == "bf16"):
        return _float_cast(
            b, b.fpext(x, F32) if src.bits < 32 else b.fptrunc(x, F32), _F32, dst, rounding
        )
    if dst.bits > src.bits:
        return b.fpext(x, dty)
    if rounding == "rtz":
        if src.name != "fp32":
            raise UnsupportedFeature(f"round-toward-zero cast from {src} to {dst}")
        kind = "bf16" if dst.name == "bf16" else "f16"
        bits = intr.asm(
            b, ir.IntType(16), f"cvt.rz.{kind}.f32 $0, $1;", "=h,f", [x], side_effect=False
        )
        return b.bitcast(bits, dty)
    return b.fptrunc(x, dty)


_F32 = ScalarType("fp32", Kind.FLOAT, 32)


def _pointer_cast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, llvm_type(dst))
    return b.inttoptr(x, llvm_type(dst))


def bitcast(b: ir.IRBuilder, x: ir.Value, dst: Element) -> ir.Value:
    dty = llvm_type(dst)
    if isinstance(dst, PointerType):
        return b.inttoptr(x, dty)
    if isinstance(x.type, ir.PointerType):
        return b.ptrtoint(x, dty)
    return b.bitcast(x, dty)


def constant(value: bool | int | float, elem: Element) -> ir.Constant:
    ty = llvm_type(elem)
    if isinstance(elem, ScalarType) and elem.is_floating():
        return ir.Constant(ty, float(value))
    if isinstance(elem, ScalarType):
        v = int(value) & ((1 << elem.bits) - 1)
        if elem.bits > 1 and v >= 1 << (elem.bits - 1):
            v -= 1 << elem.bits  # LLVM spells integer constants signed
        return ir.Constant(ty, v)
    raise UnsupportedFeature(f"constant of type {elem}")
