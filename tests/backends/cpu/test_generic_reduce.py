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
