"""One-register arithmetic: binary operators, comparisons, casts and selects on LLVM values.

The tile rules apply these to every register of a tile; combine regions of reductions use them
on single values. Signedness comes from the tile IR element type, as in the IR's contract.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.types import Element, Kind, PointerType, ScalarType
from ..llvm import scalar as S
from ..llvm.types import BFloatType
from . import intrinsics as intr
from .types import F32, F64, llvm_type

_FLOAT_BIN = {
    O.BinaryKind.ADD: "fadd", O.BinaryKind.SUB: "fsub", O.BinaryKind.MUL: "fmul",
    O.BinaryKind.DIV: "fdiv",
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
    if kind in _SHIFTS and _int_width(x.type) == 64 and not isinstance(y, ir.Constant):
        return _shift64(b, kind, elem.kind is Kind.SINT, x, y)
    return S.int_binary(b, kind, elem.kind is Kind.SINT, x, y)


_SHIFTS = (O.BinaryKind.SHL, O.BinaryKind.SHR)


def _int_width(t: ir.Type) -> int:
    return t.width if isinstance(t, ir.IntType) else 0


def _shift64(
    b: ir.IRBuilder, kind: O.BinaryKind, signed: bool, x: ir.Value, y: ir.Value
) -> ir.Value:
    """A 64-bit shift by a variable amount as PTX's own clamping shift (amounts >= 64 give 0, or
    the sign fill), the semantics S.shift spells in LLVM IR. NVPTX folds that spelling's
    ``select(y > 63, 0, lshr(x, y))`` back into ``shr.u64`` and narrows the amount to 32 bits, so
    ``3 >> 0x3FF0000000000000`` shifted by 0 (fuzz seed 103 #1266). The amount is clamped to 64
    in 64 bits first, where LLVM cannot see the shift to undo it."""
    wide = ir.Constant(y.type, 64)
    amount = b.trunc(b.select(b.icmp_unsigned(">", y, wide), wide, y), ir.IntType(32))
    op = "shl.b64" if kind is O.BinaryKind.SHL else "shr.s64" if signed else "shr.u64"
    return intr.asm(b, x.type, f"{op} $0, $1, $2;", "=l,l,r", [x, amount], side_effect=False)


def _float_binary(
    b: ir.IRBuilder, kind: O.BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool, fast: bool
) -> ir.Value:
    """fp16/bf16 arithmetic is native: one correctly rounded op, the same bits as rounding the
    fp32 result (fp32 holds more than twice their precision)."""
    if kind in (O.BinaryKind.MIN, O.BinaryKind.MAX):
        return S.float_minmax(b, kind, x, y, propagate_nan)
    if kind is O.BinaryKind.REM:
        return _fmod(b, x, y)
    name = _FLOAT_BIN.get(kind)
    if name is None:
        raise UnsupportedFeature(f"float operator {kind.value}")
    flags = ("arcp", "afn") if fast and kind is O.BinaryKind.DIV and str(x.type) == "float" else ()
    return getattr(b, name)(x, y, flags=flags)


def _fmod(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """C fmod through libdevice: NVPTX expands ``frem`` as x - trunc(x / y) * y, which is not
    exact. fmod's result is exact, so fp16/bf16 round-trip through fp32 unchanged."""
    if str(x.type) == "double":
        return b.call(intr.declare(b, "__nv_fmod", F64, [F64, F64]), [x, y])
    wide = [v if v.type == F32 else b.fpext(v, F32) for v in (x, y)]
    r = b.call(intr.declare(b, "__nv_fmodf", F32, [F32, F32]), wide)
    return r if x.type == F32 else b.fptrunc(r, x.type)


def compare(
    b: ir.IRBuilder, kind: O.CompareKind, x: ir.Value, y: ir.Value, elem: Element
) -> ir.Value:
    if isinstance(elem, PointerType):
        return S.compare(b, kind, Kind.UINT, x, y)
    return S.compare(b, kind, Kind.FLOAT if elem.is_floating() else elem.kind, x, y)


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
            return S.float_is_nonzero(b, x)
        return b.icmp_unsigned("!=", x, ir.Constant(x.type, 0))
    if src.is_int() and dst.is_int():
        if dst.bits < src.bits:
            return b.trunc(x, dty)
        if dst.bits == src.bits:
            return x
        return b.sext(x, dty) if src.kind is Kind.SINT else b.zext(x, dty)
    if src.is_int():
        return _narrow(b, S.int_to_float(b, x, src.kind is Kind.SINT, dst), dst, rounding)
    if dst.is_int():
        return S.float_to_int(b, x, dst)
    if dst.bits > src.bits:
        return b.fpext(x, dty)
    if src.bits == 16:  # fp16 <-> bf16: exact in fp32, then one rounding
        x = b.fpext(x, F32)
    return _narrow(b, x, dst, rounding)


def _narrow(b: ir.IRBuilder, x: ir.Value, dst: ScalarType, rounding: str) -> ir.Value:
    """An fp32/fp64 value rounded once to ``dst`` (see llvm/scalar.py): fp64 → fp16/bf16 goes
    through fp32 rounded to odd, since NVPTX may lower a direct fptrunc in two roundings."""
    dty = llvm_type(dst)
    if x.type == dty:
        return x
    if str(x.type) == "double" and dst.bits == 16:
        x = S.narrow_rtz(b, x, F32) if rounding == "rtz" else S.f64_to_f32_odd(b, x)
    return S.narrow_rtz(b, x, dty) if rounding == "rtz" else b.fptrunc(x, dty)


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
    if _is_float16(x.type) and _is_float16(dty) and x.type != dty:
        # half <-> bfloat through an opaque 16-bit move (ptxas drops it): LLVM 22's InstCombine
        # folds ``fcmp oeq/une (bitcast half to bfloat), 0`` with a constant of the float type
        # and aborts the process, and the zero may only appear after its own folding
        bits = intr.asm(b, ir.IntType(16), "mov.b16 $0, $1;", "=h,h", [b.bitcast(x, ir.IntType(16))],
                        side_effect=False)  # fmt: skip
        return b.bitcast(bits, dty)
    return b.bitcast(x, dty)


def _is_float16(t: ir.Type) -> bool:
    return isinstance(t, (ir.HalfType, BFloatType))


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
