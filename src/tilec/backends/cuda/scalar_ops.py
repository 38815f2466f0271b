"""One-register arithmetic: binary operators, comparisons, casts and selects on LLVM values.

The tile rules apply these to every register of a tile; combine regions of reductions use them
on single values. Signedness comes from the tile IR element type, as in the IR's contract.
The semantics are llvm/scalar.py's; values keep their native types (half, bfloat), and the
few calls a GPU spells its own way (variable 64-bit shifts, fmod, an opaque copy) go through
the TargetInfo.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.types import Element, Kind, PointerType, ScalarType
from ..llvm import scalar as S
from ..llvm.types import BFloatType
from .target_info import TargetInfo
from .types import F32, llvm_type

_FLOAT_BIN = {
    O.BinaryKind.ADD: "fadd", O.BinaryKind.SUB: "fsub", O.BinaryKind.MUL: "fmul",
    O.BinaryKind.DIV: "fdiv",
}  # fmt: skip


def binary(
    b: ir.IRBuilder,
    target: TargetInfo,
    kind: O.BinaryKind,
    x: ir.Value,
    y: ir.Value,
    elem: ScalarType,
    propagate_nan: bool = False,
    fast: bool = False,
) -> ir.Value:
    if elem.is_floating():
        return _float_binary(b, target, kind, x, y, elem, propagate_nan, fast)
    if kind in _SHIFTS and not isinstance(y, ir.Constant):
        return target.shift(b, kind, elem.kind is Kind.SINT, x, y)
    return S.int_binary(b, kind, elem.kind is Kind.SINT, x, y)


_SHIFTS = (O.BinaryKind.SHL, O.BinaryKind.SHR)


def _float_binary(
    b: ir.IRBuilder,
    target: TargetInfo,
    kind: O.BinaryKind,
    x: ir.Value,
    y: ir.Value,
    elem: ScalarType,
    propagate_nan: bool,
    fast: bool,
) -> ir.Value:
    """fp16/bf16 arithmetic is native: one correctly rounded op, the same bits as rounding the
    fp32 result (fp32 holds more than twice their precision). ``%`` is C fmod from the target's
    math library: NVPTX expands ``frem`` as x - trunc(x / y) * y, which is not exact."""
    if kind in (O.BinaryKind.MIN, O.BinaryKind.MAX):
        return S.float_minmax(b, kind, x, y, propagate_nan)
    if kind is O.BinaryKind.REM:
        return target.math(b, "fmod", [x, y], elem, False)
    name = _FLOAT_BIN.get(kind)
    if name is None:
        raise UnsupportedFeature(f"float operator {kind.value}")
    flags = ("arcp", "afn") if fast and kind is O.BinaryKind.DIV and str(x.type) == "float" else ()
    return getattr(b, name)(x, y, flags=flags)


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
        return S.is_nonzero(b, x, src.is_floating())
    if src.is_int() and dst.is_int():
        return S.int_resize(b, x, src.kind is Kind.SINT, dty)
    if src.is_int():
        return S.narrow(b, S.int_to_float(b, x, src.kind is Kind.SINT, dst), dty, rounding)
    if dst.is_int():
        return S.float_to_int(b, x, dst)
    if dst.bits > src.bits:
        return b.fpext(x, dty)
    if src.bits == 16:  # fp16 <-> bf16: exact in fp32, then one rounding
        x = b.fpext(x, F32)
    return S.narrow(b, x, dty, rounding)


def _pointer_cast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, llvm_type(dst))
    return b.inttoptr(x, llvm_type(dst))


def bitcast(b: ir.IRBuilder, target: TargetInfo, x: ir.Value, dst: Element) -> ir.Value:
    dty = llvm_type(dst)
    if isinstance(dst, PointerType):
        return b.inttoptr(x, dty)
    if isinstance(x.type, ir.PointerType):
        return b.ptrtoint(x, dty)
    if _is_float16(x.type) and _is_float16(dty) and x.type != dty:
        # half <-> bfloat through an opaque 16-bit copy: LLVM 22's InstCombine folds
        # ``fcmp oeq/une (bitcast half to bfloat), 0`` with a constant of the float type and
        # aborts the process, and the zero may only appear after its own folding
        return b.bitcast(target.opaque(b, b.bitcast(x, ir.IntType(16))), dty)
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
