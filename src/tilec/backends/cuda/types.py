"""Tile IR element types as llvmlite types for NVPTX (bf16 is llvm/types.py's ``bfloat``).

Pointers are opaque ``ptr addrspace(N)``; i1 stays i1 in registers and is widened to i8 in memory.
The SIMT lowering takes its pointer types from the TargetInfo (global_ptr, shared_ptr,
generic_ptr); the constants here are NVPTX's, for it and for NVIDIA-only modules.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache

from llvmlite import ir

from ...ir.types import Element, PointerType, ScalarType
from ..llvm import types as T
from ..llvm.types import BFloatType

I1, I8, I16, I32, I64 = T.i1, T.i8, T.i16, T.i32, T.i64
F16, BF16, F32, F64, VOID = T.f16, T.bfloat, T.f32, T.f64, T.void


class AddressSpace(IntEnum):
    """LLVM's NVPTX address spaces (a tile IR pointer's address_space 1 is global, as here)."""

    GENERIC = 0
    GLOBAL = 1
    SHARED = 3


GLOBAL_PTR = ir.PointerType(addrspace=AddressSpace.GLOBAL)
SHARED_PTR = ir.PointerType(addrspace=AddressSpace.SHARED)
GENERIC_PTR = ir.PointerType(addrspace=AddressSpace.GENERIC)


@cache
def llvm_type(t: Element) -> ir.Type:
    """The register type of one element: llvm/types.py's, with bf16 as ``bfloat`` and a
    pointer in its address space."""
    if isinstance(t, PointerType):
        return ir.PointerType(addrspace=t.address_space)
    return T.storage_type(t, bf16_as_int=False)


def memory_type(t: Element) -> ir.Type:
    """The in-memory type of one element (bools are bytes in memory, as in Triton)."""
    if isinstance(t, ScalarType) and t.bits == 1:
        return I8
    return llvm_type(t)


def byte_size(t: Element) -> int:
    """Bytes one element occupies in memory."""
    if isinstance(t, PointerType):
        return 8
    return max(t.bits // 8, 1)


def type_bytes(t: ir.Type) -> int:
    """Bytes one value of the llvmlite type ``t`` occupies in memory."""
    return max(T.bit_width(t) // 8, 1)  # pointers are 64 bits


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.HalfType, ir.FloatType, ir.DoubleType, BFloatType))
