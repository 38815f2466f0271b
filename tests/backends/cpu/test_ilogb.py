"""libdevice.ilogb on the CPU: the exponent from the float's bits, with CUDA's libdevice results
at the edges (0 and NaN give INT_MIN, +-inf INT_MAX) on every host; C leaves NaN's result to
the platform (INT_MAX on Windows and AArch64 glibc), which the host's ilogb returned before."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned
from tilec.language.extra import libdevice

INT_MIN, INT_MAX = -(2**31), 2**31 - 1


@jit
def exponent(x_ptr, y_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(y_ptr + offs, libdevice.ilogb(tl.load(x_ptr + offs)))


def _reference(v: float) -> int:
    if v == 0 or np.isnan(v):
        return INT_MIN
    if np.isinf(v):
        return INT_MAX
    return int(np.frexp(v)[1]) - 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_normal_subnormal_and_edge_values(dtype) -> None:
    fi = np.finfo(dtype)
    values = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -3.0, 0.75, float(fi.max),
              float(fi.tiny), float(fi.tiny) / 2, float(fi.smallest_subnormal),
              float(fi.tiny) * 0.999, 1e10 if dtype != np.float16 else 6e4, -2.5e-3]  # fmt: skip
    x = np.array(values, dtype=np.float64).astype(dtype)
    y = poisoned(16, np.int32)
    exponent[(1,)](x, y, 16)
    assert y.tolist() == [_reference(v) for v in x.astype(np.float64)]
