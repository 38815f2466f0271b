"""One-register arithmetic: binary operators, comparisons, casts and selects on LLVM values.

The tile rules apply these to every register of a tile; combine regions of reductions use them
on single values. Signedness comes from the tile IR element type, as in the IR's contract.
The semantics are llvm/element.py's and llvm/scalar.py's; values keep their native types (half,
bfloat), and the few calls a GPU spells its own way (variable 64-bit shifts, fmod, an opaque
copy) go through the TargetInfo.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.types import Element, PointerType, ScalarType
from ..llvm import element
from ..llvm import scalar as S
from ..llvm.types import BFloatType
from .target_info import TargetInfo
from .types import llvm_type


@dataclass(frozen=True)
class _Native:
    """CUDA's representation: every type native (half, bfloat), arithmetic in it; variable
    64-bit shifts and fmod through the TargetInfo (a cast needs neither: ``target`` None)."""

    target: TargetInfo | None = None

    def storage(self, t: Element) -> ir.Type:
        return llvm_type(t)

    def compute_type(self, t: ScalarType) -> ir.Type:
        return llvm_type(t)

    def widen(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
        return x

    def narrow(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: O.Rounding) -> ir.Value:
        return S.narrow(b, x, llvm_type(t), rounding)

    def shift(
        self, b: ir.IRBuilder, kind: O.BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        assert self.target is not None
        return self.target.shift(b, kind, signed, x, y)

    def fmod(self, b: ir.IRBuilder, x: ir.Value, y: ir.Value, t: ScalarType) -> ir.Value:
        """C fmod from the target's math library: NVPTX expands ``frem`` as
        x - trunc(x / y) * y, which is not exact."""
        assert self.target is not None
        return self.target.math(b, "fmod", [x, y], t, False)


_CASTS = _Native()


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
    """``x kind y`` (llvm/element.binary); fp16/bf16 arithmetic is native: one correctly
    rounded op, the same bits as rounding the fp32 result."""
    return element.binary(b, _Native(target), kind, elem, x, y, propagate_nan, fast)


def compare(
    b: ir.IRBuilder, kind: O.CompareKind, x: ir.Value, y: ir.Value, elem: Element
) -> ir.Value:
    return element.compare(b, _CASTS, kind, elem, x, y)


def cast(
    b: ir.IRBuilder,
    x: ir.Value,
    src: Element,
    dst: Element,
    rounding: O.Rounding = O.Rounding.RTNE,
) -> ir.Value:
    return element.cast(b, _CASTS, x, src, dst, rounding)


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
