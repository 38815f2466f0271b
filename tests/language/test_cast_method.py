"""``x.cast(dtype, bitcast=...)`` is a tensor method, the same builtin as ``tl.cast``."""

from __future__ import annotations

import numpy as np

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def cast_method_kernel(x_ptr, v_ptr, b_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(v_ptr + offs, x.cast(tl.int32))
    tl.store(b_ptr + offs, x.cast(tl.int32, bitcast=True))


def test_cast_method_converts_and_bitcasts():
    n = 64
    x = random(n, np.float32, -100, 100)
    value, bits = poisoned(n, np.int32), poisoned(n, np.int32)
    cast_method_kernel[(1,)](x, value, bits, BLOCK=n)
    np.testing.assert_array_equal(value, np.trunc(x.astype(np.float64)).astype(np.int32))
    np.testing.assert_array_equal(bits, x.view(np.int32))
