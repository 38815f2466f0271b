"""``>>`` is arithmetic when the tensor on its left is signed, as in Triton, even where promotion
with an unsigned right operand makes the result unsigned (``int8 >> uint8`` is a uint8 that
shifted the sign bit in)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def shr_kernel(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x >> y)


@jit
def shr_number_kernel(y_ptr, out_ptr, LHS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, LHS >> y)


CASES = [  # x, y, the promoted (result) type
    ("int8", "uint8", "uint8"),
    ("int8", "uint32", "uint32"),
    ("int16", "uint16", "uint16"),
    ("int32", "uint32", "uint32"),
    ("int32", "uint64", "uint64"),
    ("int64", "uint64", "uint64"),
    ("uint8", "int8", "uint8"),
    ("uint16", "int32", "int32"),
    ("int16", "int8", "int16"),
    ("uint32", "uint32", "uint32"),
]


@pytest.mark.parametrize("tx, ty, tz", CASES)
def test_shr_signedness_follows_lhs(tx, ty, tz):
    n = 128
    tz = np.dtype(tz)
    x = random(n, tx, -(2**62), 2**62)
    y = random(n, ty, 0, tz.itemsize * 8 - 1)
    out = poisoned(n, tz)
    shr_kernel[(1,)](x, y, out, BLOCK=n)
    # x's value in the result's width, shifted as x's own signedness says
    work = np.dtype(f"{'int' if np.dtype(tx).kind == 'i' else 'uint'}{tz.itemsize * 8}")
    expect = (x.astype(work) >> y.astype(work)).astype(tz)
    assert (x < 0).any() or np.dtype(tx).kind == "u"
    np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("ty, lhs", [("int32", -64), ("int64", -(2**40)), ("uint32", 0xFFFFFFC0)])
def test_shr_of_a_number_follows_the_tensor(ty, lhs):
    n = 64
    y = random(n, ty, 0, 31)
    out = poisoned(n, ty)
    shr_number_kernel[(1,)](y, out, LHS=lhs, BLOCK=n)
    np.testing.assert_array_equal(out, np.array(lhs).astype(ty) >> y)
