"""One element's arithmetic, comparisons and conversions, for every backend: the code one lane of
a tile (or a scalar) gets.

The edge-case semantics are decided once, here and in llvm/scalar.py (docs/language/semantics.md
lists them). A backend differs only in how it holds values, described by a
:class:`Representation`: the LLVM type of each element, whether fp16/bf16 arithmetic runs in
that type or in fp32 (widened exactly, rounded back to nearest-even after every operation: the
same bits), and the few operations a target spells its own way (a variable shift, fmod).
"""

from __future__ import annotations

from typing import Protocol

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.ops import BinaryKind, CompareKind, Rounding
from ...ir.types import Element, Kind, PointerType, ScalarType
from . import scalar as S
from . import types as T
from .intrinsics import call_same


class Representation(Protocol):
    """How a backend holds one element in LLVM values."""

    def storage(self, t: Element) -> ir.Type:
        """The type an element is held in, in registers and in memory."""
        ...

    def compute_type(self, t: ScalarType) -> ir.Type:
        """The type ``t``'s arithmetic runs in: the storage type, or fp32 for fp16/bf16 on a
        target that computes them there."""
        ...

    def widen(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
        """``x`` (storage) in the compute type, exactly."""
        ...

    def narrow(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: Rounding) -> ir.Value:
        """``x`` (fp32 or fp64) in ``t``'s storage type, rounded once by ``rounding``."""
        ...

    def shift(
        self, b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        """``x`` shifted by the variable amount ``y`` (llvm/scalar.shift's semantics)."""
        ...

    def fmod(self, b: ir.IRBuilder, x: ir.Value, y: ir.Value, t: ScalarType) -> ir.Value:
        """C's exact ``fmod`` of two compute values."""
        ...


def _signed(t: Element) -> bool:
    return isinstance(t, ScalarType) and t.kind is Kind.SINT


_SHIFTS = (BinaryKind.SHL, BinaryKind.SHR)
# LLVM's min/max a vectorizer recognizes, by (kind, propagate_nan): NaN is ignored or returned
_SIMD_MINMAX = {
    (BinaryKind.MIN, False): "minnum",
    (BinaryKind.MIN, True): "minimum",
    (BinaryKind.MAX, False): "maxnum",
    (BinaryKind.MAX, True): "maximum",
}
_FLOAT_OPS = {
    BinaryKind.ADD: "fadd",
    BinaryKind.SUB: "fsub",
    BinaryKind.MUL: "fmul",
    BinaryKind.DIV: "fdiv",
}


def binary(
    b: ir.IRBuilder,
    rep: Representation,
    kind: BinaryKind,
    t: ScalarType,
    x: ir.Value,
    y: ir.Value,
    propagate_nan: bool = False,
    fast: bool = False,
    simd_minmax: bool = False,
) -> ir.Value:
    """``x kind y``. Float min/max are compares and selects with llvm/scalar's exact semantics;
    ``simd_minmax`` asks for LLVM's minnum/maxnum (minimum/maximum) instead, for reduction
    loops a vectorizer must recognize: the same NaN rule, a zero result's sign left open.
    ``fast``: fp32 division may be approximate (tl.math.div_rn's fast siblings)."""
    if not t.is_floating():
        if kind in _SHIFTS and not isinstance(y, ir.Constant):
            return rep.shift(b, kind, _signed(t), x, y)
        return S.int_binary(b, kind, _signed(t), x, y)
    wide = rep.compute_type(t)
    cx, cy = rep.widen(b, x, t), rep.widen(b, y, t)
    if simd_minmax and kind in (BinaryKind.MIN, BinaryKind.MAX):
        result = call_same(b, _SIMD_MINMAX[kind, propagate_nan], cx, cy)
    elif kind in (BinaryKind.MIN, BinaryKind.MAX):
        result = S.float_minmax(b, kind, cx, cy, propagate_nan)
    elif kind is BinaryKind.REM:
        result = rep.fmod(b, cx, cy, t)
    elif kind in _FLOAT_OPS:
        approximate = fast and kind is BinaryKind.DIV and wide == T.f32
        flags = ("arcp", "afn") if approximate else ()
        result = getattr(b, _FLOAT_OPS[kind])(cx, cy, flags=flags)
    else:
        raise UnsupportedFeature(f"binary {kind.value} on floating-point values")
    return result if wide == rep.storage(t) else rep.narrow(b, result, t, Rounding.RTNE)


def compare(
    b: ir.IRBuilder, rep: Representation, kind: CompareKind, t: Element, x: ir.Value, y: ir.Value
) -> ir.Value:
    """``x kind y`` as i1: floats by IEEE order (NaN unordered), integers by their signedness,
    pointers as unsigned addresses."""
    if isinstance(t, ScalarType) and t.is_floating():
        return S.compare(b, kind, Kind.FLOAT, rep.widen(b, x, t), rep.widen(b, y, t))
    return S.compare(b, kind, Kind.SINT if _signed(t) else Kind.UINT, x, y)


def cast(
    b: ir.IRBuilder,
    rep: Representation,
    x: ir.Value,
    src: Element,
    dst: Element,
    rounding: Rounding = Rounding.RTNE,
) -> ir.Value:
    """``x`` converted from ``src`` to ``dst`` by value, rounded once by ``rounding`` (float
    results); floats to integers saturate, NaN gives 0 (llvm/scalar)."""
    if src == dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _pointer_cast(b, rep, x, src, dst)
    if dst.is_bool():
        floating = src.is_floating()
        return S.is_nonzero(b, rep.widen(b, x, src) if floating else x, floating)
    if src.is_floating() and dst.is_floating():
        cx = rep.widen(b, x, src)
        want = rep.compute_type(dst)
        if T.bit_width(want) > T.bit_width(cx.type):
            cx = b.fpext(cx, want)
        elif T.bit_width(cx.type) == 16 and cx.type != want:  # fp16 <-> bf16: exact in fp32
            cx = b.fpext(cx, T.f32)
        return rep.narrow(b, cx, dst, rounding)
    if src.is_floating():
        return S.float_to_int(b, rep.widen(b, x, src), dst)
    if dst.is_floating():
        return rep.narrow(b, S.int_to_float(b, x, _signed(src), dst), dst, rounding)
    to = rep.storage(dst)
    assert isinstance(to, ir.IntType)
    return S.int_resize(b, x, _signed(src), to)


def _pointer_cast(
    b: ir.IRBuilder, rep: Representation, x: ir.Value, src: Element, dst: Element
) -> ir.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, rep.storage(dst))
    # the frontend widens narrower integers to 64 bits first (semantics.cast)
    return b.inttoptr(S.int_resize(b, x, _signed(src), T.i64), rep.storage(dst))
