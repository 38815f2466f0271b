"""``tl.squeeze`` / ``tl.unsqueeze`` and ``tl.topk(..., descending=False)``."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def squeeze_roundtrip(X, Y, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    col = tl.unsqueeze(x, 1)  # (N, 1)
    tl.static_assert(col.shape == (N, 1))
    row = tl.unsqueeze(tl.squeeze(col, 1), 0)  # (1, N)
    tl.static_assert(row.shape == (1, N))
    tl.store(Y + tl.arange(0, N)[None, :], row * 2)


@jit
def squeeze_wrong_dim(X, N: tl.constexpr):
    tl.squeeze(tl.load(X + tl.arange(0, N)), 0)


@jit
def topk_kernel(X, Y, N: tl.constexpr, K: tl.constexpr, DESCENDING: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    tl.store(Y + tl.arange(0, K), tl.topk(x, K, descending=DESCENDING))


def test_squeeze_unsqueeze_values():
    x, y = random(16, np.float32), poisoned(16, np.float32)
    squeeze_roundtrip[(1,)](x, y, 16)
    np.testing.assert_array_equal(y, x * 2)


def test_squeeze_of_a_dimension_larger_than_one_is_refused():
    from tilec.errors import CompileTimeAssertionFailure

    with pytest.raises(CompileTimeAssertionFailure, match="must have size 1"):
        squeeze_wrong_dim[(1,)](np.zeros(8, np.float32), 8)


@pytest.mark.parametrize("descending", [True, False])
def test_topk_order(descending):
    x = np.random.default_rng().permutation(64).astype(np.float32)
    y = poisoned(8, np.float32)
    topk_kernel[(1,)](x, y, 64, 8, descending)
    expected = np.sort(x)[::-1][:8] if descending else np.sort(x)[:8]
    np.testing.assert_array_equal(y, expected)
