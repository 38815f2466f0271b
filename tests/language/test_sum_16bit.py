"""tl.sum of fp16/bf16 keeps the input's dtype but adds in fp32, rounding once: a long chain of
16-bit additions stalls (2048 + 1 is 2048 in fp16), which a GPU's tree of partial sums never
shows."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned


@jit
def sum_of_ones(out_ptr, DTYPE: tl.constexpr, N: tl.constexpr):
    x = tl.full((N, N), 1.0, DTYPE)
    s = tl.sum(x)
    tl.static_assert(s.dtype == DTYPE)
    rows = tl.sum(x, axis=1)
    tl.static_assert(rows.dtype == DTYPE)
    tl.store(out_ptr, s.to(tl.float32))
    tl.store(out_ptr + 1 + tl.arange(0, N), rows.to(tl.float32))


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_sum_of_many_16_bit_values(dtype):
    n = 64  # 4096 ones: exact in both dtypes, beyond a 16-bit running sum
    out = poisoned(1 + n, np.float32)
    sum_of_ones[(1,)](out, dtype, n)
    assert out[0] == n * n
    np.testing.assert_array_equal(out[1:], np.full(n, n, np.float32))
