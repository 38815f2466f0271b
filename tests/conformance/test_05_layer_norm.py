"""Tutorial 05: layer norm forward (row walked in chunks, mean and rstd saved) and backward
(dX per row; dW/dB summed into GROUP_SIZE_M partial rows under an atomic_cas / atomic_xchg spin
lock, then reduced by a second kernel) against float64."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, padded_input, poisoned, uniform

EPS = 1e-5
PAD = 3  # X, Y, dY and dX share one row stride, n + PAD


def forward_reference(x, w, b):
    x = x.astype(np.float64)
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(x.var(axis=1) + EPS)
    xhat = (x - mean[:, None]) * rstd[:, None]
    return xhat * w + b, mean, rstd, xhat


def backward_reference(dy, x, w, b):
    _, _, rstd, xhat = forward_reference(x, w, b)
    wdy = w.astype(np.float64) * dy
    c1 = (xhat * wdy).mean(axis=1, keepdims=True)
    c2 = wdy.mean(axis=1, keepdims=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx, (dy * xhat).sum(axis=0), dy.astype(np.float64).sum(axis=0)


def run_forward(x, w, b, block_size):
    m, n = x.shape
    x = padded_input(x, PAD)
    y, whole = guarded((m, n), x.dtype, pad=PAD)
    mean, rstd = poisoned(m, np.float32), poisoned(m, np.float32)
    kernels.layer_norm_forward(x, w, b, y, mean, rstd, EPS, block_size=block_size)
    assert_guard_untouched(y, whole)
    return y, mean, rstd


@pytest.mark.parametrize(("m", "n", "block_size"), [(1, 5, 16), (20, 70, 32), (9, 256, 64)])
def test_forward_float32(m, n, block_size):
    x = uniform((m, n), np.float32, -3, 5)
    w, b = uniform(n, np.float32), uniform(n, np.float32)
    y, mean, rstd = run_forward(x, w, b, block_size)
    ref_y, ref_mean, ref_rstd, _ = forward_reference(x, w, b)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    np.testing.assert_allclose(y, ref_y, rtol=1e-4, atol=1e-4)


def test_forward_float16():
    m, n = 12, 100
    x = uniform((m, n), np.float16, -3, 5)
    w, b = uniform(n, np.float16), uniform(n, np.float16)
    y, mean, rstd = run_forward(x, w, b, 64)
    ref_y, ref_mean, ref_rstd, _ = forward_reference(x, w, b)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rstd, ref_rstd, rtol=1e-4)
    np.testing.assert_allclose(y, ref_y, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize(("m", "n", "group_size_m"), [(64, 50, 1), (96, 37, 4), (3, 130, 8)])
def test_backward(m, n, group_size_m):
    x, dy = uniform((m, n), np.float32, -3, 5), uniform((m, n), np.float32)
    w, b = uniform(n, np.float32), uniform(n, np.float32)
    _, mean, rstd = run_forward(x, w, b, 32)
    dx, dx_whole = guarded((m, n), np.float32, pad=PAD)
    dw, db = poisoned(n, np.float32), poisoned(n, np.float32)
    locks = np.zeros(2 * group_size_m, np.int32)
    partial = (np.zeros((group_size_m, n), np.float32), np.zeros((group_size_m, n), np.float32))
    kernels.layer_norm_backward(
        padded_input(dy, PAD),
        padded_input(x, PAD),
        w,
        mean,
        rstd,
        dx,
        dw,
        db,
        (locks, *partial),
        group_size_m,
    )
    ref_dx, ref_dw, ref_db = backward_reference(dy, x, w, b)
    np.testing.assert_allclose(dx, ref_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, ref_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, ref_db, rtol=1e-4, atol=1e-4)
    assert_guard_untouched(dx, dx_whole)
    # Every lock was released; every group that received a row raised its first-writer flag.
    used = min(m, group_size_m)
    np.testing.assert_array_equal(locks[:group_size_m], 0)
    np.testing.assert_array_equal(locks[group_size_m:], [1] * used + [0] * (group_size_m - used))


def test_backward_float16():
    # As the tutorial runs it: fp16 activations, weights, partial and final dW/dB buffers.
    m, n, group_size_m = 40, 48, 4
    x, dy = uniform((m, n), np.float16, -3, 5), uniform((m, n), np.float16)
    w, b = uniform(n, np.float16), uniform(n, np.float16)
    _, mean, rstd = run_forward(x, w, b, 64)
    dx, dx_whole = guarded((m, n), np.float16, pad=PAD)
    dw, db = poisoned(n, np.float16), poisoned(n, np.float16)
    locks = np.zeros(2 * group_size_m, np.int32)
    partial = (np.zeros((group_size_m, n), np.float16), np.zeros((group_size_m, n), np.float16))
    kernels.layer_norm_backward(
        padded_input(dy, PAD), padded_input(x, PAD), w, mean, rstd, dx, dw, db,
        (locks, *partial), group_size_m,
    )  # fmt: skip
    ref_dx, ref_dw, ref_db = backward_reference(dy, x, w, b)
    np.testing.assert_allclose(dx, ref_dx, rtol=1e-2, atol=1e-2)
    # Ten fp16 roundings of a running partial sum per group: a relative error of a few 1e-3.
    np.testing.assert_allclose(dw, ref_dw, rtol=1e-2, atol=2e-2)
    np.testing.assert_allclose(db, ref_db, rtol=1e-2, atol=2e-2)
    assert_guard_untouched(dx, dx_whole)
