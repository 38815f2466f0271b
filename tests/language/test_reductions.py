"""sum/max/min/argmax/argmin/xor_sum/reduce with keep_dims, and scans, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def rows_and_columns(
    x_ptr,
    sum_ptr,
    max_ptr,
    min_ptr,
    amax_ptr,
    amin_ptr,
    all_ptr,
    prod_ptr,
    M: tl.constexpr,
    N: tl.constexpr,
):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    rows = tl.arange(0, M)
    tl.store(sum_ptr + rows, tl.sum(x, axis=1))
    tl.store(max_ptr + rows, x.max(1))
    tl.store(min_ptr + tl.arange(0, N), tl.min(x, axis=0))
    tl.store(amax_ptr + rows, tl.argmax(x, 1))
    tl.store(amin_ptr + tl.arange(0, N), tl.argmin(x, axis=0))
    tl.store(all_ptr, tl.sum(x))
    kept = tl.reduce(x, 1, _mul, keep_dims=True)
    tl.static_assert(kept.shape == (M, 1))
    tl.store(prod_ptr + rows[:, None], kept)


@tilec.jit
def _mul(a, b):
    return a * b


def test_row_and_column_reductions():
    m, n = 8, 16
    x = random((m, n), np.float32, -2, 2)
    outs = [
        poisoned(m, np.float32),
        poisoned(m, np.float32),
        poisoned(n, np.float32),
        poisoned(m, np.int32),
        poisoned(n, np.int32),
        poisoned(1, np.float32),
        poisoned(m, np.float32),
    ]
    rows_and_columns[(1,)](x, *outs, M=m, N=n)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(outs[0], x64.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outs[1], x.max(1))
    np.testing.assert_array_equal(outs[2], x.min(0))
    np.testing.assert_array_equal(outs[3], x.argmax(1))
    np.testing.assert_array_equal(outs[4], x.argmin(0))
    np.testing.assert_allclose(outs[5][0], x64.sum(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs[6], x64.prod(1), rtol=1e-4, atol=1e-6)


@jit
def column_min_max(x_ptr, min_ptr, max_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    tl.store(min_ptr + tl.arange(0, N), tl.min(x, axis=0))
    tl.store(max_ptr + tl.arange(0, N), tl.max(x, axis=0))


def test_float_min_max_along_axis_0():
    x = random((8, 16), np.float32)
    lo, hi = poisoned(16, np.float32), poisoned(16, np.float32)
    column_min_max[(1,)](x, lo, hi, M=8, N=16)
    np.testing.assert_array_equal(lo, x.min(0))
    np.testing.assert_array_equal(hi, x.max(0))


@jit
def int_reductions(x_ptr, sum_ptr, xor_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    s = tl.sum(x)
    tl.static_assert(s.dtype == tl.int32)  # int8 sums accumulate in int32
    tl.store(sum_ptr, s)
    tl.store(xor_ptr, tl.xor_sum(x.to(tl.int32)))


def test_int8_sum_widens_and_xor_sum():
    x = random(128, np.int8, -100, 100)
    s, xs = poisoned(1, np.int32), poisoned(1, np.int32)
    int_reductions[(1,)](x, s, xs, N=128)
    assert s[0] == x.astype(np.int64).sum()
    assert xs[0] == np.bitwise_xor.reduce(x.astype(np.int32))


@jit
def scans(x_ptr, cs_ptr, rcs_ptr, cp_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(cs_ptr + offs, tl.cumsum(x, 0))
    tl.store(rcs_ptr + offs, tl.cumsum(x, axis=0, reverse=True))
    tl.store(cp_ptr + offs, x.cumprod(0))


def test_scans():
    x = random(32, np.float32, 0.5, 1.5)
    cs, rcs, cp = (poisoned(32, np.float32) for _ in range(3))
    scans[(1,)](x, cs, rcs, cp, N=32)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(cs, np.cumsum(x64), rtol=1e-5)
    np.testing.assert_allclose(rcs, np.cumsum(x64[::-1])[::-1], rtol=1e-5)
    np.testing.assert_allclose(cp, np.cumprod(x64), rtol=1e-5)


@jit
def sort_kernel(x_ptr, asc_ptr, desc_ptr, top_ptr, N: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, tl.sort(x, descending=True))
    tl.store(top_ptr + tl.arange(0, K), tl.topk(x, K))


def test_sort_and_topk():
    x = random(64, np.float32)
    a, d, t = poisoned(64, np.float32), poisoned(64, np.float32), poisoned(8, np.float32)
    sort_kernel[(1,)](x, a, d, t, N=64, K=8)
    np.testing.assert_array_equal(a, np.sort(x))
    np.testing.assert_array_equal(d, np.sort(x)[::-1])
    np.testing.assert_array_equal(t, np.sort(x)[::-1][:8])


@tilec.jit
def _linear_recurrence(a1, b1, a2, b2):
    # composition of x -> a1*x + b1 then x -> a2*x + b2
    return a1 * a2, b1 * a2 + b2


@jit
def recurrence(a_ptr, b_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), 1, _linear_recurrence)
    tl.store(out_ptr + offs, h)


def test_associative_scan_with_tuple_combine():
    m, n = 4, 16
    a, b = random((m, n), np.float32, 0.5, 1.0), random((m, n), np.float32)
    out = poisoned((m, n), np.float32)
    recurrence[(1,)](a, b, out, M=m, N=n)
    h = np.zeros((m, n))
    acc = np.zeros(m)
    for j in range(n):
        acc = a[:, j] * acc + b[:, j]
        h[:, j] = acc
    np.testing.assert_allclose(out, h, rtol=1e-5, atol=1e-5)


@jit
def ties(x_ptr, left_ptr, right_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(left_ptr, tl.argmax(x, 0))
    tl.store(right_ptr, tl.argmin(x, 0, tie_break_left=False))


def test_argmax_argmin_tie_breaking():
    x = random(64, np.int32, 0, 3)
    left, right = poisoned(1, np.int32), poisoned(1, np.int32)
    ties[(1,)](x, left, right, N=64)
    assert left[0] == np.argmax(x)
    assert right[0] == 63 - np.argmin(x[::-1])


@jit
def sort_rows(x_ptr, asc_ptr, top_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, x.sort(dim=1))
    tl.store(
        top_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K, dim=1)
    )


@pytest.mark.parametrize("dtype", ["int32", "float16"])
def test_sort_rows_of_a_2d_tile(dtype):
    x = random((4, 32), dtype, -1000, 1000)
    asc, top = poisoned((4, 32), dtype), poisoned((4, 8), dtype)
    sort_rows[(1,)](x, asc, top, M=4, N=32, K=8)
    np.testing.assert_array_equal(asc, np.sort(x, axis=1))
    np.testing.assert_array_equal(top, np.sort(x, axis=1)[:, ::-1][:, :8])
