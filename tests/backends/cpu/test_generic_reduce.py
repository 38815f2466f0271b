"""Reductions with a general combine region (argmax/argmin, user functions) run lane-parallel:
results, including first-index tie breaking, match a sequential reduction."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def arg_rows(x_ptr, amax_ptr, amin_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(amax_ptr + row, tl.argmax(x, 0))
    tl.store(amin_ptr + row, tl.argmin(x, 0))


@pytest.mark.parametrize("n", [16, 64, 1024])
def test_argmax_argmin_first_index_on_ties(n: int) -> None:
    rng = np.random.default_rng()
    x = rng.integers(-3, 4, (32, n)).astype(np.float32)  # many equal maxima and minima
    amax = np.full(32, -1, np.int32)
    amin = np.full(32, -1, np.int32)
    arg_rows[(32,)](x, amax, amin, N=n)
    np.testing.assert_array_equal(amax, x.argmax(1))
    np.testing.assert_array_equal(amin, x.argmin(1))


@tilec.jit
def _max_abs(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@tilec.jit
def user_combine(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr, tl.reduce(x, 0, _max_abs))
    tl.store(out_ptr + 1 + tl.arange(0, N // 4), tl.reduce(tl.reshape(x, (N // 4, 4)), 1, _max_abs))


def test_user_combine_function() -> None:
    x = np.random.default_rng().standard_normal(256).astype(np.float32)
    out = np.full(65, np.nan, np.float32)
    user_combine[(1,)](x, out, N=256)
    assert out[0] == np.abs(x).max()
    np.testing.assert_array_equal(out[1:], np.abs(x).reshape(64, 4).max(1))


@tilec.jit
def max_min_rows(x_ptr, mx_ptr, mn_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=m, other=float("nan"))
    tl.store(mx_ptr + row, tl.max(x, axis=0))
    tl.store(mn_ptr + row, tl.min(x, axis=0))


@pytest.mark.parametrize("n_cols", [1024, 1000, 37])
def test_max_min_ignore_nan_on_ragged_rows(n_cols: int) -> None:
    rng = np.random.default_rng()
    x = rng.standard_normal((16, n_cols)).astype(np.float32)
    x[rng.random(x.shape) < 0.1] = np.nan
    mx = np.full(16, -7.0, np.float32)
    mn = np.full(16, -7.0, np.float32)
    max_min_rows[(16,)](x, mx, mn, n_cols, BLOCK=1024)
    np.testing.assert_array_equal(mx, np.nanmax(x, axis=1))
    np.testing.assert_array_equal(mn, np.nanmin(x, axis=1))
