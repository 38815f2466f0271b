"""An integer argument outside the 64-bit range is an OverflowError (and a tilec UsageError),
as Triton raises it; the ends of the range launch."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned


@jit
def store_high_bits(value, out):
    tl.store(out, (value >> 32).to(tl.int64))


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1])
def test_out_of_range_is_an_overflow_error(value):
    out = np.zeros(1, np.int64)
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        store_high_bits[(1,)](value, out)
    with pytest.raises(tilec.errors.UsageError):
        store_high_bits[(1,)](value, out)


@pytest.mark.parametrize("value", [2**64 - 1, -(2**63)])
def test_range_ends_launch(value):
    out = poisoned(1, np.int64)
    store_high_bits[(1,)](value, out)
    assert out[0] == value >> 32  # u64 shifts in zeros, i64 copies its sign
