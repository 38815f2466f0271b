"""Tutorial 02: row-wise fused softmax, BLOCK = next_power_of_2(n_cols), a persistent loop with
fewer programs than rows, strided rows, and columns past n_cols left alone."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, padded_input, uniform


def reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("n_rows", "n_cols", "programs"),
    [(1, 1, 4), (37, 100, 4), (9, 128, 3), (64, 33, 64), (5, 300, 2)],
)
def test_softmax_rows(n_rows, n_cols, programs):
    x = padded_input(uniform((n_rows, n_cols), np.float32, -5, 5))
    out, whole = guarded((n_rows, n_cols), np.float32, pad=7)
    kernels.softmax(x, out, num_programs=programs)
    np.testing.assert_allclose(out, reference(x), rtol=2e-6, atol=1e-7)
    assert_guard_untouched(out, whole)


def test_softmax_large_magnitudes():
    # exp() of the raw inputs would overflow: only the max subtraction keeps this finite.
    x = uniform((6, 50), np.float32, -300, 300)
    x[:, 7] = 1000.0
    out, whole = guarded((6, 50), np.float32)
    kernels.softmax(x, out, num_programs=4, num_stages=3)
    np.testing.assert_allclose(out, reference(x), rtol=2e-6, atol=1e-30)
    assert_guard_untouched(out, whole)
