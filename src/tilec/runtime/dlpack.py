"""Read the data address, device and dtype of an object that only speaks DLPack.

``obj.__dlpack__()`` returns a PyCapsule around a ``DLManagedTensor``; we read its ``DLTensor``
header with ctypes and leave the capsule unconsumed, so its destructor releases the producer's
reference as usual while the caller's object keeps the memory alive.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from ..backends.dlpack_exchange import DLTensor as _DLTensor
from ..errors import UsageError
from ..ir.types import ScalarType
from . import dtypes
from .memory import CUDA_MEMORY, HOST_MEMORY

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13


@dataclass(frozen=True)
class DLPackView:
    address: int
    device: str  # a memory.py name
    dtype: ScalarType


def _capsule_pointer(capsule: Any) -> int:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    try:
        return int(get(capsule, b"dltensor") or 0)
    except ValueError:
        raise UsageError("__dlpack__() returned a capsule that is not a 'dltensor'") from None


def view(obj: Any) -> DLPackView:
    """The address, device kind and element type of a DLPack-exporting object."""
    capsule = obj.__dlpack__()
    address = _capsule_pointer(capsule)
    if not address:
        raise UsageError(f"{type(obj).__name__}.__dlpack__() returned an empty capsule")
    # DLManagedTensor starts with its DLTensor, so the capsule pointer is the DLTensor's address.
    tensor = _DLTensor.from_address(address)
    kind = tensor.device.device_type
    if kind in (KDL_CPU, KDL_CUDA_HOST):
        device = HOST_MEMORY
    elif kind in (KDL_CUDA, KDL_CUDA_MANAGED):
        device = CUDA_MEMORY
    else:
        raise UsageError(f"DLPack device type {kind} is neither a CPU nor a CUDA device")
    dt = tensor.dtype
    element = dtypes.from_dlpack(dt.code, dt.bits, dt.lanes)
    data = (tensor.data or 0) + tensor.byte_offset
    del capsule  # the destructor hands the tensor back to its producer
    return DLPackView(data, device, element)
