"""Elementwise operations on single LLVM values: the code one element of a tile (or a scalar) gets.

The semantics are llvm/element.py's and llvm/scalar.py's (shared with the CUDA backend); this
module holds the CPU's representation. Values use their storage type (fp16 as ``half``, bf16 as ``i16``); fp16/bf16
arithmetic extends to fp32, computes, and rounds back to nearest-even after every op, as Triton
does. Every fp16/bf16 conversion is integer code, so no object ever needs a compiler-rt helper
(``__truncdfhf2``, ``__extendhfsf2`` ...) that the Python process may lack; on targets whose ISA
converts fp32 <-> fp16 in one instruction (x86 F16C, AArch64) that instruction is used instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from llvmlite import ir

from ...ir.ops import BinaryKind, CompareKind, Rounding
from ...ir.types import Element, PointerType, ScalarType
from ..llvm import element
from ..llvm import scalar as S
from ..llvm import types as T

# whether the module being lowered may use fpext/fptrunc between half and float: set for the
# duration of one lowering (a context variable, so concurrent compiles for other targets don't mix)
_native_half: ContextVar[bool] = ContextVar("tilec_cpu_native_half", default=False)


def has_native_half(triple: str, features: str) -> bool:
    """True where LLVM selects fp32 <-> fp16 conversions to one instruction, never a libcall."""
    return triple.startswith(("aarch64", "arm64")) or "+f16c" in features.split(",")


@contextlib.contextmanager
def native_half(enabled: bool) -> Iterator[None]:
    """Lower the fp32 <-> fp16 conversions inside the block with native instructions."""
    token = _native_half.set(enabled)
    try:
        yield
    finally:
        _native_half.reset(token)


def to_compute(b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
    """Widen fp16/bf16 storage values to fp32 (exactly); other values are returned unchanged."""
    if t.name == "fp16":
        if _native_half.get():
            return b.fpext(x, T.f32)
        return S.f16_bits_to_f32(b, b.bitcast(x, T.i16))
    if t.name == "bf16":
        return S.bf16_bits_to_f32(b, x)
    return x


def from_compute(
    b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: Rounding = Rounding.RTNE
) -> ir.Value:
    """Round a compute value (fp32 or fp64) to ``t``'s storage type, correctly rounded (one
    rounding: fp64 goes through fp32 rounded to odd)."""
    if t.name not in ("fp16", "bf16"):
        return S.narrow(b, x, T.storage_type(t), rounding)
    if x.type == T.f64:
        x = S.f64_to_f32_before_16(b, x, rounding)
    if t.name == "bf16":
        return S.f32_to_bf16_bits(b, x, rounding)
    if rounding is Rounding.RTNE and _native_half.get():
        return b.fptrunc(x, T.f16)  # one rounding from fp32, nearest-even, NaN made quiet
    return b.bitcast(S.f32_to_f16_bits(b, x, rounding), T.f16)


def constant(t: Element, value: bool | int | float) -> ir.Constant:
    """A constant in storage representation."""
    if isinstance(t, ScalarType) and t.name == "bf16":
        return ir.Constant(T.i16, T.f32_to_bf16_bits(float(value)))
    if isinstance(t, PointerType):
        return ir.Constant(T.ptr, None)
    return T.const(T.storage_type(t), value)


class _CpuRepresentation:
    """The CPU's: storage types, fp16/bf16 computed in fp32, shifts and fmod as LLVM's."""

    def storage(self, t: Element) -> ir.Type:
        return T.storage_type(t)

    def compute_type(self, t: ScalarType) -> ir.Type:
        return T.compute_type(t)

    def widen(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
        return to_compute(b, x, t)

    def narrow(self, b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: Rounding) -> ir.Value:
        return from_compute(b, x, t, rounding)

    def shift(
        self, b: ir.IRBuilder, kind: BinaryKind, signed: bool, x: ir.Value, y: ir.Value
    ) -> ir.Value:
        return S.int_binary(b, kind, signed, x, y)

    def fmod(self, b: ir.IRBuilder, x: ir.Value, y: ir.Value, t: ScalarType) -> ir.Value:
        return b.frem(x, y)  # C fmod, through the C library: exact


CPU = _CpuRepresentation()


def binary(
    b: ir.IRBuilder,
    kind: BinaryKind,
    t: ScalarType,
    x: ir.Value,
    y: ir.Value,
    propagate_nan: bool = False,
    simd_minmax: bool = False,
) -> ir.Value:
    """``x kind y`` (llvm/element.binary on the CPU's representation)."""
    return element.binary(b, CPU, kind, t, x, y, propagate_nan, simd_minmax=simd_minmax)


def compare(b: ir.IRBuilder, kind: CompareKind, t: Element, x: ir.Value, y: ir.Value) -> ir.Value:
    return element.compare(b, CPU, kind, t, x, y)


def cast(
    b: ir.IRBuilder,
    x: ir.Value,
    src: Element,
    dst: Element,
    rounding: Rounding = Rounding.RTNE,
) -> ir.Value:
    return element.cast(b, CPU, x, src, dst, rounding)


def bitcast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    to = T.storage_type(dst)
    if x.type == to:
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, to)
    if isinstance(dst, PointerType):
        return b.inttoptr(x, to)
    return b.bitcast(x, to)
