"""A callee's tl.constexpr parameter takes run-time values too (Triton binds them as ordinary values)."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def _shift(x, offs: tl.constexpr):
    return x + offs


@tilec.jit
def _kernel(out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, _shift(offs * 2, offs) + _shift(offs, 100))


def test_runtime_value_bound_to_constexpr_parameter() -> None:
    out = np.full(16, -1, np.int32)
    _kernel[(1,)](out, BLOCK=16)
    i = np.arange(16, dtype=np.int32)
    np.testing.assert_array_equal(out, 3 * i + i + 100)
