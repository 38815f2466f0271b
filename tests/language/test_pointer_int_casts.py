"""Pointers convert to and from integers through 64 bits, the same on every backend: a narrower
signed integer is sign-extended before it becomes an address (C's conversion), an unsigned one
zero-extended; a pointer cast to a narrower integer is its address truncated, and cast to int1
it is ``ptr != 0``, as in Triton (not the address's lowest bit)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned


@jit
def through_a_pointer(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(x_ptr + offs).to(tl.pointer_type(tl.int8))  # never dereferenced
    tl.store(out_ptr + offs, p.to(tl.int64))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "uint16", "uint32"])
def test_an_integer_becomes_an_address_through_64_bits(dtype: str) -> None:
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, -1 if info.min else 1, 0, 1, 5, info.max - 1, info.max])
    x = x.astype(dtype)
    out = poisoned(x.shape, np.int64)
    through_a_pointer[(1,)](x, out, BLOCK=x.size)
    np.testing.assert_array_equal(out, x.astype(np.int64))  # sign- or zero-extended


@jit
def address_bits(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(x_ptr + offs).to(tl.pointer_type(tl.float32))
    tl.store(out_ptr + offs, p.to(tl.int32))


def test_a_pointer_becomes_a_narrower_integer_truncated() -> None:
    x = np.array([2**32 + 5, 2**33 - 1, -7, 2**40 + 2**31], np.int64)
    out = poisoned(x.shape, np.int32)
    address_bits[(1,)](x, out, BLOCK=4)
    np.testing.assert_array_equal(out, x.astype(np.int32))  # the low 32 bits, two's complement


@jit
def pointer_truth(x_ptr, base_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(x_ptr + offs).to(tl.pointer_type(tl.float32))
    tl.store(out_ptr + offs, p.to(tl.int1).to(tl.int8))
    tl.store(out_ptr + BLOCK + offs, (base_ptr + offs).to(tl.int1).to(tl.int8))


def test_a_pointer_as_int1_is_non_null() -> None:
    # even addresses are true: the lowest bit is not the answer
    x = np.array([0, 2, 4096, 1, 2**40, 0, 8, 16], np.int64)
    out = poisoned(16, np.int8)
    base = np.zeros(8, np.float32)
    pointer_truth[(1,)](x, base, out, BLOCK=8)
    np.testing.assert_array_equal(out[:8], (x != 0).astype(np.int8))
    np.testing.assert_array_equal(out[8:], np.ones(8, np.int8))
