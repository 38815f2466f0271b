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
from ..llvm.types import BFloatType, bfloat

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F16 = ir.HalfType()
BF16 = bfloat
F32 = ir.FloatType()
F64 = ir.DoubleType()
VOID = ir.VoidType()


class AddressSpace(IntEnum):
    """LLVM's NVPTX address spaces (a tile IR pointer's address_space 1 is global, as here)."""

    GENERIC = 0
    GLOBAL = 1
    SHARED = 3


GLOBAL_PTR = ir.PointerType(addrspace=AddressSpace.GLOBAL)
SHARED_PTR = ir.PointerType(addrspace=AddressSpace.SHARED)
GENERIC_PTR = ir.PointerType(addrspace=AddressSpace.GENERIC)

_FLOATS = {"fp16": F16, "bf16": BF16, "fp32": F32, "fp64": F64}


@cache
def llvm_type(t: Element) -> ir.Type:
    """The register type of one element."""
    if isinstance(t, PointerType):
        return ir.PointerType(addrspace=t.address_space)
    if t.is_floating():
        return _FLOATS[t.name]
    return ir.IntType(t.bits)


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
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    if isinstance(t, ir.PointerType):
        return 8
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.HalfType, ir.FloatType, ir.DoubleType, BFloatType))
