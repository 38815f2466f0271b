"""Elementwise arithmetic, promotion and C-style integer division against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint32"]
)
def test_add_every_dtype_ragged(dtype):
    n = 1000
    x, y = random(n, dtype), random(n, dtype)
    out = poisoned(n, dtype)
    add_kernel[(8,)](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, (x.astype(np.float64) + y).astype(dtype))


@jit
def int_ops(x_ptr, y_ptr, q_ptr, r_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, x // y, mask=mask)
    tl.store(r_ptr + offs, x % y, mask=mask)
    tl.store(s_ptr + offs, (x << 2) ^ (x >> 1) | (x & 7), mask=mask)


def test_integer_division_truncates_like_c():
    n = 200
    x = random(n, np.int32, -1000, 1000)
    y = random(n, np.int32, -9, 9)
    y[y == 0] = 3
    q, r, s = poisoned(n, np.int32), poisoned(n, np.int32), poisoned(n, np.int32)
    int_ops[(1,)](x, y, q, r, s, n, BLOCK=256)
    np.testing.assert_array_equal(q, np.trunc(x / y).astype(np.int32))
    np.testing.assert_array_equal(r, np.fmod(x, y))
    np.testing.assert_array_equal(s, ((x << 2) ^ (x >> 1)) | (x & 7))


@jit
def promote(i_ptr, h_ptr, f_ptr, out_div, out_mix, out_scalar, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(i_ptr + offs)
    h = tl.load(h_ptr + offs)
    f = tl.load(f_ptr + offs)
    tl.static_assert((i / i).dtype == tl.float32)
    tl.static_assert((h + i).dtype == tl.float16)
    tl.static_assert((h / h).dtype == tl.float32)
    tl.static_assert((h * 2.0).dtype == tl.float16)
    tl.static_assert((i * 2.5).dtype == tl.float32)
    tl.static_assert((h + f).dtype == tl.float32)
    tl.store(out_div + offs, i / 3)
    tl.store(out_mix + offs, h + i)
    tl.store(out_scalar + offs, f * 2 + 1)


def test_promotion_follows_triton():
    i = random(64, np.int32, -50, 50)
    h = random(64, np.float16)
    f = random(64, np.float32)
    d, m, s = poisoned(64, np.float32), poisoned(64, np.float16), poisoned(64, np.float32)
    promote[(1,)](i, h, f, d, m, s, BLOCK=64)
    np.testing.assert_allclose(d, i / 3, rtol=1e-6)
    np.testing.assert_allclose(m, (h.astype(np.float64) + i).astype(np.float16), rtol=1e-3)
    np.testing.assert_allclose(s, f.astype(np.float64) * 2 + 1, rtol=1e-6, atol=1e-6)


@jit
def compare_logic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inside = (x > -1.0) & (x < 1.0)
    r = tl.where(inside | (x == 2.0), x, -x)
    r = tl.where(not (x > 3.0), r, 0.0)
    tl.store(out_ptr + offs, tl.maximum(tl.minimum(r, 2.5), -2.5), mask=mask)


def test_compare_where_minmax():
    n = 100
    x = random(n, np.float32)
    x[:5] = 2.0
    out = poisoned(n, np.float32)
    compare_logic[(1,)](x, out, n, BLOCK=128)
    x64 = x.astype(np.float64)
    r = np.where(((x64 > -1) & (x64 < 1)) | (x64 == 2), x64, -x64)
    r = np.where(~(x64 > 3), r, 0.0)
    np.testing.assert_allclose(out, np.clip(r, -2.5, 2.5), rtol=1e-7)


@jit
def offsets64(x_ptr, out_ptr, base, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    tl.store(out_ptr + offs - base, tl.load(x_ptr + offs - base) * 2)


def test_int64_offsets():
    x = random(64, np.float32)
    out = poisoned(64, np.float32)
    offsets64[(1,)](x, out, 2**33, BLOCK=64)
    np.testing.assert_array_equal(out, x * 2)
