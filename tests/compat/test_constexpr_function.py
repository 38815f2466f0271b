"""``tilec.constexpr_function``: a Python helper kernels call with compile-time values."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned


@tilec.constexpr_function
def block_for(n):
    return max(16, 1 << (n - 1).bit_length())


@jit
def fill(Y, N: tl.constexpr):
    B: tl.constexpr = block_for(N)
    offs = tl.arange(0, B)
    tl.store(Y + offs, offs, mask=offs < N)


@jit
def runtime_argument(Y, n):
    block_for(n)


def test_called_at_compile_time_and_from_python():
    assert block_for(20) == 32  # still an ordinary function on the host
    y = poisoned(20, np.int32)
    fill[(1,)](y, 20)
    np.testing.assert_array_equal(y, np.arange(20))


def test_runtime_values_are_refused():
    with pytest.raises(tilec.CompileError, match="block_for"):
        runtime_argument[(1,)](np.zeros(4, np.int32), 5)


def test_non_callables_are_refused():
    with pytest.raises(tilec.errors.UsageError, match="expects a function"):
        tilec.constexpr_function(3)
