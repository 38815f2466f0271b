"""``tl.expect_zero(x, mask)`` (Triton's underflow hint): ``x`` unchanged, and in debug mode a
device assertion that ``x`` is zero where ``mask`` holds."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec.errors import DeviceAssertError


def _kernel(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(Y + offs, tl.expect_zero(x, offs < 8) * 2)


def test_values_pass_through():
    k = jit(_kernel)
    x = random(16, np.float32)
    x[:8] = 0
    y = poisoned(16, np.float32)
    k[(1,)](x, y, BLOCK=16)
    np.testing.assert_array_equal(y, x.astype(np.float64) * 2)


def test_debug_mode_checks_the_masked_values():
    k = tilec.jit(_kernel, debug=True)
    x = np.zeros(16, np.float32)
    x[10] = 3.0  # outside the mask: allowed
    y = poisoned(16, np.float32)
    k[(1,)](x, y, BLOCK=16)
    np.testing.assert_array_equal(y, x * 2)
    x[3] = 1.0
    with pytest.raises(DeviceAssertError, match="expect_zero expected x == 0"):
        k[(1,)](x, y, BLOCK=16)
