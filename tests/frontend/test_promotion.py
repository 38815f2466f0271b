"""Triton 3.9's type promotion: the computation type table, Python constants, and the result
dtypes kernels see (checked at compile time with tl.static_assert)."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build
from tilec.errors import TileTypeError
from tilec.frontend.semantics import computation_type, integer_promote, python_type
from tilec.ir import types as T


@pytest.mark.parametrize(
    ("a", "b", "div", "want"),
    [
        (T.int32, T.int64, False, T.int64),
        (T.int32, T.uint32, False, T.uint32),
        (T.int64, T.uint32, False, T.int64),
        (T.int8, T.int16, False, T.int16),
        (T.float16, T.int32, False, T.float16),
        (T.float16, T.float16, True, T.float32),
        (T.bfloat16, T.bfloat16, False, T.bfloat16),
        (T.bfloat16, T.float16, False, T.float16),
        (T.bfloat16, T.int8, False, T.float32),
        (T.float32, T.float64, False, T.float64),
        (T.float16, T.float32, False, T.float32),
        (T.int1, T.int8, False, T.int8),
    ],
)
def test_tensor_tensor(a, b, div, want):
    assert computation_type(a, False, b, False, div) == want
    assert computation_type(b, False, a, False, div) == want


def test_scalar_of_lower_kind_does_not_widen():
    assert computation_type(T.float16, False, T.float32, True, False) == T.float16
    assert computation_type(T.int8, False, T.int32, True, False) == T.int8
    assert computation_type(T.float16, False, T.float32, True, True) == T.float32
    assert computation_type(T.int32, False, T.float32, True, False) == T.float32


def test_mixed_signedness_division_is_an_error():
    with pytest.raises(TileTypeError, match="different signedness"):
        computation_type(T.int32, False, T.uint32, False, True)


def test_python_constant_types():
    assert python_type(True) == T.int1
    assert python_type(7) == T.int32
    assert python_type(2**31) == T.uint32
    assert python_type(-(2**31) - 1) == T.int64
    assert python_type(2**63) == T.uint64
    assert python_type(1.5) == T.float32
    assert python_type(1e300) == T.float64
    assert python_type(float("inf")) == T.float32
    assert integer_promote(T.uint8, T.int8) == T.uint8


def k_dtypes(i_ptr, l_ptr, h_ptr, u_ptr):
    i = tl.load(i_ptr)
    li = tl.load(l_ptr)
    h = tl.load(h_ptr)
    u = tl.load(u_ptr)
    tl.static_assert((i + li).dtype == tl.int64)
    tl.static_assert((i + 1).dtype == tl.int32)
    tl.static_assert((i / 2).dtype == tl.float32)
    tl.static_assert((i // 2).dtype == tl.int32)
    tl.static_assert((h + 1).dtype == tl.float16)
    tl.static_assert((h * 1.5).dtype == tl.float16)
    tl.static_assert((h / 2).dtype == tl.float32)
    tl.static_assert((u + 1).dtype == tl.uint32)
    tl.static_assert((i < li).dtype == tl.int1)
    tl.static_assert((i_ptr + li).dtype == i_ptr.dtype)


def test_kernel_result_dtypes():
    build(k_dtypes, "*i32", "*i64", "*fp16", "*u32")


def k_unsigned_negative(u_ptr):
    tl.store(u_ptr, tl.load(u_ptr) + -1)


def test_unsigned_with_negative_constant():
    with pytest.raises(TileTypeError) as info:
        build(k_unsigned_negative, "*u32")
    assert info.value.message == (  # Triton's message
        "Cannot perform a binary operation between an unsigned tensor and a negative scalar: "
        "cast one of them explicitly"
    )


def k_out_of_range(p):
    tl.store(p, tl.load(p) + 300)


def test_constant_out_of_range_for_narrow_int():
    with pytest.raises(TileTypeError) as info:
        build(k_out_of_range, "*i8")
    assert info.value.message == "Scalar 300 is out of range for type int8"  # Triton's message


def k_wide_constant_shift(p):
    tl.store(p, 0xFFFFFFC0 >> tl.load(p))


def test_uint32_constant_with_int32_tensor_is_refused():
    # as in Triton: the number takes the int32 tensor's type, which cannot hold it
    with pytest.raises(TileTypeError) as info:
        build(k_wide_constant_shift, "*i32")
    assert info.value.message == "Scalar 4294967232 is out of range for type int32"


def k_where_int_condition(p):
    x = tl.load(p + tl.arange(0, 8))
    tl.store(p + tl.arange(0, 8), tl.where(x, x, x + 1))


def k_where_bool_condition(p):
    x = tl.load(p + tl.arange(0, 8))
    tl.store(p + tl.arange(0, 8), tl.where(x != 0, x, x + 1))


def test_where_warns_on_a_non_boolean_condition():
    # as Triton: a deprecation warning (the condition still means != 0)
    with pytest.warns(UserWarning, match=r"non-boolean condition \(int32\)"):
        build(k_where_int_condition, "*i32")


def test_where_with_a_boolean_condition_does_not_warn():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(k_where_bool_condition, "*i32")
