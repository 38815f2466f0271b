"""Tutorial 01: vector add over ragged sizes; the mask keeps writes inside the output."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, uniform


@pytest.mark.parametrize("n", [1, 17, 1000, 4099])
def test_add_float32(n):
    x, y = uniform(n, np.float32), uniform(n, np.float32)
    out, whole = guarded(n, np.float32)
    kernels.add(x, y, out)
    # float32 addition is correctly rounded, so the float64 sum rounds to the same bits.
    np.testing.assert_array_equal(out, (x.astype(np.float64) + y).astype(np.float32))
    assert_guard_untouched(out, whole)


@pytest.mark.parametrize("block_size", [16, 128])
def test_add_block_sizes(block_size):
    n = 333
    x, y = uniform(n, np.float32), uniform(n, np.float32)
    out, whole = guarded(n, np.float32)
    kernels.add(x, y, out, block_size=block_size)
    np.testing.assert_array_equal(out, (x.astype(np.float64) + y).astype(np.float32))
    assert_guard_untouched(out, whole)


def test_add_float16():
    n = 515
    x, y = uniform(n, np.float16), uniform(n, np.float16)
    out, whole = guarded(n, np.float16)
    kernels.add(x, y, out)
    np.testing.assert_array_equal(out, (x.astype(np.float64) + y).astype(np.float16))
    assert_guard_untouched(out, whole)
