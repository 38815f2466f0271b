"""Map tile IR element types to llvmlite.ir types, including a ``bfloat`` type llvmlite lacks.

The CPU backend stores bf16 as i16 and converts with integer code (see cpu/scalar.py) so no
target needs a soft-float runtime helper; the CUDA backend can use :data:`bfloat` directly.
"""

from __future__ import annotations

import struct

from llvmlite import ir

from ...ir.types import Element, PointerType, ScalarType
from ..float_bits import f32_to_bf16_bits


class BFloatType(ir.types._BaseFloatType):  # type: ignore[misc, name-defined]
    """LLVM's ``bfloat``: constants are written as ``0xR`` and four hex digits (the upper 16 bits of an f32)."""

    null = "0.0"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value: float) -> str:
        return f"0xR{f32_to_bf16_bits(float(value)):04X}"


BFloatType._create_instance()
bfloat = BFloatType()

i1 = ir.IntType(1)
i8 = ir.IntType(8)
i16 = ir.IntType(16)
i32 = ir.IntType(32)
i64 = ir.IntType(64)
f16 = ir.HalfType()
f32 = ir.FloatType()
f64 = ir.DoubleType()
ptr = ir.PointerType()
void = ir.VoidType()


def bit_width(t: ir.Type) -> int:
    """Bit width of an LLVM scalar type (pointers count as 64)."""
    if isinstance(t, ir.IntType):
        return t.width
    if isinstance(t, (ir.HalfType, BFloatType)):
        return 16
    if isinstance(t, ir.FloatType):
        return 32
    return 64


def storage_type(t: Element, *, bf16_as_int: bool = True) -> ir.Type:
    """The LLVM type that holds one element in memory and in registers."""
    if isinstance(t, PointerType):
        return ptr
    assert isinstance(t, ScalarType)
    if t.name == "bf16":
        return i16 if bf16_as_int else bfloat
    if t.name == "fp16":
        return f16
    if t.name == "fp32":
        return f32
    if t.name == "fp64":
        return f64
    return ir.IntType(t.bits)


def compute_type(t: ScalarType) -> ir.Type:
    """The type arithmetic happens in: fp16/bf16 compute in fp32 (rounded back after each op)."""
    if t.name in ("fp16", "bf16"):
        return f32
    return storage_type(t)


def const(t: ir.Type, value: bool | int | float) -> ir.Constant:
    """An LLVM constant of ``t`` (integers wrap to the type's width, as two's complement)."""
    if isinstance(t, ir.IntType):
        v = int(value) & ((1 << t.width) - 1)
        return ir.Constant(t, v)
    if isinstance(t, ir.HalfType):
        return ir.Constant(t, _round_half(float(value)))
    if isinstance(t, ir.FloatType):
        return ir.Constant(t, _round_f32(float(value)))
    return ir.Constant(t, float(value))


def _round_f32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _round_half(value: float) -> float:
    try:
        return struct.unpack("<e", struct.pack("<e", value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")
