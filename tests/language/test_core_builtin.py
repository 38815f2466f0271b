"""``tl.core.builtin`` (Triton's decorator for functions the compiler calls with kernel
values): run while the kernel compiles, with tensors among its arguments; Triton's
``_semantic`` object does not exist in tilec and any use of it is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@tl.core.builtin
def pick(values, i, _semantic=None):
    return values[i]


@tl.core.builtin
def needs_builder(x, _semantic=None):
    return _semantic.builder


@tilec.constexpr_function
def second(xs):
    return xs[1]


@jit
def pick_kernel(X, Y):
    x = tl.load(X + tl.arange(0, 8))
    tl.store(Y + tl.arange(0, 8), pick((x * 2, x + 1), second([0, 1, 0])))


@jit
def builder_kernel(X):
    needs_builder(tl.load(X))


def test_called_with_kernel_values():
    x = random(8, np.float32)
    y = poisoned(8, np.float32)
    pick_kernel[(1,)](x, y)
    np.testing.assert_array_equal(y, (x.astype(np.float64) + 1).astype(np.float32))


def test_semantic_use_is_refused():
    with pytest.raises(tilec.CompileError, match=r"_semantic\.builder"):
        builder_kernel[(1,)](np.zeros(1, np.float32))
