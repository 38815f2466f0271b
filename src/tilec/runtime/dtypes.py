"""The one table from host array dtypes to IR scalar types.

Every array protocol names its element type differently (``str(torch.float32)``, a numpy dtype,
an ``__array_interface__`` typestr, a DLPack ``(code, bits)`` pair); each is first reduced to a
canonical name and then looked up in ``BY_NAME``, so a new dtype is added in exactly one place.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from ..ir import types as ir

# canonical name (numpy / torch spelling without prefix) -> IR scalar type
BY_NAME: dict[str, ir.ScalarType] = {
    "bool": ir.int1,
    "int8": ir.int8,
    "int16": ir.int16,
    "int32": ir.int32,
    "int64": ir.int64,
    "uint8": ir.uint8,
    "uint16": ir.uint16,
    "uint32": ir.uint32,
    "uint64": ir.uint64,
    "float16": ir.float16,
    "half": ir.float16,
    "bfloat16": ir.bfloat16,
    "float32": ir.float32,
    "float": ir.float32,
    "float64": ir.float64,
    "double": ir.float64,
    # torch's fp8 dtypes (the kernel sees their bits; tl casts decode them)
    "float8_e4m3fn": ir.float8e4nv,
    "float8_e5m2": ir.float8e5,
    "float8_e4m3fnuz": ir.float8e4b8,
    "float8_e5m2fnuz": ir.float8e5b16,
}

# __array_interface__ / __cuda_array_interface__ typestr kind + byte size -> canonical name
_TYPESTR: dict[tuple[str, int], str] = {
    ("b", 1): "bool",
    ("i", 1): "int8",
    ("i", 2): "int16",
    ("i", 4): "int32",
    ("i", 8): "int64",
    ("u", 1): "uint8",
    ("u", 2): "uint16",
    ("u", 4): "uint32",
    ("u", 8): "uint64",
    ("f", 2): "float16",
    ("f", 4): "float32",
    ("f", 8): "float64",
}

# DLPack DLDataTypeCode (0 int, 1 uint, 2 float, 4 bfloat, 6 bool) + bits -> canonical name
_DLPACK: dict[tuple[int, int], str] = {
    (0, 8): "int8",
    (0, 16): "int16",
    (0, 32): "int32",
    (0, 64): "int64",
    (1, 8): "uint8",
    (1, 16): "uint16",
    (1, 32): "uint32",
    (1, 64): "uint64",
    (2, 16): "float16",
    (2, 32): "float32",
    (2, 64): "float64",
    (4, 16): "bfloat16",
    (6, 8): "bool",
}


def _unknown(what: object) -> UsageError:
    known = ", ".join(sorted(BY_NAME))
    return UsageError(f"tilec kernels cannot take arrays of dtype {what}; supported: {known}")


def from_name(name: str) -> ir.ScalarType:
    """``"torch.float32"``, ``"float32"``, a numpy ``dtype`` (via ``str``) -> IR type."""
    key = name.rsplit(".", 1)[-1]
    try:
        return BY_NAME[key]
    except KeyError:
        raise _unknown(name) from None


def from_dtype(dtype: Any) -> ir.ScalarType:
    """A numpy dtype, a torch dtype or anything whose ``str`` is a canonical name."""
    if isinstance(dtype, ir.ScalarType):
        return dtype
    name = getattr(dtype, "name", None)  # numpy dtypes: str(np.dtype('float32')) is 'float32'
    return from_name(name if isinstance(name, str) else str(dtype))


def from_typestr(typestr: str) -> ir.ScalarType:
    """An array-interface typestr such as ``"<f4"`` or ``"|b1"``."""
    if len(typestr) < 3 or typestr[0] == ">":
        raise _unknown(f"{typestr!r} (only little-endian or byte-sized types)")
    try:
        return BY_NAME[_TYPESTR[(typestr[1], int(typestr[2:]))]]
    except (KeyError, ValueError):
        raise _unknown(repr(typestr)) from None


def from_dlpack(code: int, bits: int, lanes: int = 1) -> ir.ScalarType:
    """A DLPack ``DLDataType`` (code, bits, lanes)."""
    name = _DLPACK.get((code, bits)) if lanes == 1 else None
    if name is None:
        raise _unknown(f"DLPack(code={code}, bits={bits}, lanes={lanes})")
    return BY_NAME[name]
