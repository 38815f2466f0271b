"""torch's DLPack C exchange API (DLPack 1.x, torch >= 2.10), for the native dispatcher.

``torch.Tensor.__dlpack_c_exchange_api__`` is a capsule around a table of C functions; one of
them fills a ``DLTensor`` (data pointer, device, dtype) from a tensor in a single C call, where
reading ``data_ptr()``, ``dtype`` and ``is_cuda`` costs three Python-level calls. The dispatcher
calls it directly. Here, once per process, each torch dtype is mapped from its DLPack code, so
the dispatcher can find the dtype's key pair. Integer codes map to None, and so does a code
that several dtypes share: the dispatcher then reads such a tensor's ``dtype`` as well. (int8
and the sub-byte int1..int7 all export as 8-bit ints; the raw-bits and quantized dtypes, which
torch refuses to export and which are not probed because each refusal costs about a
millisecond, would export as integers if a later torch exported them.)
"""

from __future__ import annotations

import ctypes
import warnings
from dataclasses import dataclass
from typing import Any


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


CAPSULE_NAME = b"dlpack_exchange_api"
SUPPORTED_MAJOR = 1
# The table: a header (version major and minor, a pointer to an older table), then the
# functions allocator, managed_from, managed_to, dltensor_from and current_work_stream.
_DLTENSOR_FROM_SLOT = 5
_INTEGER_CODES = (0, 1)  # kDLInt, kDLUInt
_NOT_EXPORTED = ("torch.bits", "torch.qint", "torch.quint")


@dataclass(frozen=True)
class TorchExchange:
    capsule: Any  # the PyCapsule the dispatcher reads the function table from
    dtypes: dict[int, Any]  # code | bits << 8 | lanes << 16 -> torch dtype, None: shared


_UNSET: Any = object()
_EXCHANGE: Any = _UNSET


def packed_dtype(code: int, bits: int, lanes: int) -> int:
    return code | bits << 8 | lanes << 16


def torch_exchange(torch: Any) -> TorchExchange | None:
    """The exchange API of this torch and its dtype table; None when torch has none."""
    global _EXCHANGE
    if _EXCHANGE is _UNSET:
        _EXCHANGE = _probe(torch)
    return _EXCHANGE  # type: ignore[no-any-return]


def describe(exchange: TorchExchange, tensor: Any) -> DLTensor:
    """The DLTensor the exchange API fills for ``tensor`` (what the dispatcher reads)."""
    out = DLTensor()
    if _dltensor_from(exchange.capsule)(tensor, ctypes.byref(out)) != 0:
        raise RuntimeError("dltensor_from_py_object_no_sync failed")
    return out


def _dltensor_from(capsule: Any) -> Any:
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    table = get(capsule, CAPSULE_NAME)
    major = ctypes.c_uint32.from_address(table).value
    function = (ctypes.c_void_p * (_DLTENSOR_FROM_SLOT + 1)).from_address(table)[-1]
    if major != SUPPORTED_MAJOR or not function:
        return None
    # PYFUNCTYPE: the call keeps the GIL, as the function may set a Python error
    signature = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
    return signature(function)


def _probe(torch: Any) -> TorchExchange | None:
    capsule = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    try:
        fill = _dltensor_from(capsule) if capsule is not None else None
    except (ValueError, TypeError):  # not a capsule of that name
        return None
    if fill is None:
        return None
    seen: dict[int, list[Any]] = {}
    for dtype in {v for v in vars(torch).values() if isinstance(v, torch.dtype)}:
        if str(dtype).startswith(_NOT_EXPORTED):
            continue
        out = DLTensor()
        try:
            with warnings.catch_warnings():  # complex32 is "experimental"
                warnings.simplefilter("ignore")
                if fill(torch.empty(1, dtype=dtype), ctypes.byref(out)) != 0:
                    continue
        except Exception:  # a dtype torch cannot create or export (quantized, bits, ...)
            continue
        dt = out.dtype
        seen.setdefault(packed_dtype(dt.code, dt.bits, dt.lanes), []).append(dtype)
    unique = {k: v[0] if len(v) == 1 and k & 0xFF not in _INTEGER_CODES else None
              for k, v in seen.items()}  # fmt: skip
    return TorchExchange(capsule, unique)
