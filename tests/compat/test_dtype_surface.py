"""Triton's dtype surface: ``tl.dtype(name)``, the type-name lists, ``dtype.name`` spellings,
``fp_mantissa_width``, ``tl.str_to_ty`` and ``tl.pi32_t``."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from tilec.errors import UnsupportedName, UsageError


def test_dtype_by_name_is_the_one_instance():
    for name in (*tl.dtype.SINT_TYPES, *tl.dtype.UINT_TYPES, *tl.dtype.STANDARD_FP_TYPES):
        t = tl.dtype(name)
        assert isinstance(t, tl.dtype) and t.name == name
    assert tl.dtype("int8") is tl.int8 and tl.dtype("uint64") is tl.uint64
    assert tl.dtype("int1") is tl.int1 and tl.dtype("bf16") is tl.bfloat16


def test_dtype_by_unknown_name_is_refused():
    with pytest.raises(UsageError, match="unknown type name"):
        tl.dtype("i32")  # the IR spelling is not a Triton dtype name
    with pytest.raises(UnsupportedName, match="void"):
        tl.dtype("void")


def test_name_lists():
    assert tl.dtype.SINT_TYPES == ("int8", "int16", "int32", "int64")
    assert tl.dtype.UINT_TYPES == ("int1", "uint8", "uint16", "uint32", "uint64")
    assert set(tl.dtype.STANDARD_FP_TYPES) <= set(tl.dtype.FP_TYPES)
    assert tl.dtype.OTHER_TYPES == ("void",)
    assert not isinstance("int8", tl.dtype) and not isinstance(tl.pi32_t, tl.dtype)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                  "uint64", "float16", "float32", "float64"])  # fmt: skip
def test_integer_names_build_numpy_dtypes(name):
    """Host code builds numpy dtypes from ``dtype.name`` (``getattr(np, t.name)``); floats use
    Triton's short names (fp32), so they go through the language name."""
    t = getattr(tl, name)
    if t.is_floating():
        assert t.name == str(t) and t.name.startswith("fp")
    else:
        assert getattr(np, t.name) is getattr(np, name)
        assert str(t) != t.name  # str() stays the IR's spelling (i32, u8)


def test_fp_mantissa_width():
    widths = {tl.float16: 10, tl.bfloat16: 7, tl.float32: 23, tl.float64: 52,
              tl.float8e4nv: 3, tl.float8e5: 2}  # fmt: skip
    for t, bits in widths.items():
        assert t.fp_mantissa_width == bits
        assert np.finfo(np.float32).nmant == tl.float32.fp_mantissa_width
    with pytest.raises(AttributeError, match="not a floating-point type"):
        _ = tl.int32.fp_mantissa_width


def test_str_to_ty_reads_triton_signature_spellings():
    assert tl.str_to_ty("fp32", None) is tl.float32
    assert tl.str_to_ty("i64", None) is tl.int64
    assert tl.str_to_ty("u1", None) is tl.int1 and tl.str_to_ty("B", None) is tl.int1
    assert tl.str_to_ty("fp8e4nv", None) is tl.float8e4nv
    assert tl.str_to_ty("*fp16", None) == tl.pointer_type(tl.float16)
    assert tl.str_to_ty("*kfp16", None) == tl.pointer_type(tl.float16)
    assert tl.str_to_ty(("i32", "*u8"), None) == (tl.int32, tl.pointer_type(tl.uint8))
    with pytest.raises(UsageError, match="unknown type name 'q7'"):
        tl.str_to_ty("q7", None)
    with pytest.raises(UnsupportedName):
        tl.str_to_ty("constexpr", 3)


def test_pi32_t():
    assert tl.pi32_t == tl.pointer_type(tl.int32)
