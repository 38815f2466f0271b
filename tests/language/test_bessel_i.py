"""libdevice.cyl_bessel_i0/i1 (written in tl) against scipy-free float64 references: the power
series in exact rational steps (Python floats) below 30 and numpy's i0 for I0."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned
from tilec.language.extra import libdevice


@jit
def bessel(x_ptr, i0_ptr, i1_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(i0_ptr + r, libdevice.cyl_bessel_i0(x))
    tl.store(i1_ptr + r, libdevice.cyl_bessel_i1(x))


def _i1(x: float) -> float:
    """I1 by its power series in Python (enough terms for |x| < 60), or inf past overflow."""
    q, term, total = x * x / 4, x / 2, x / 2
    for k in range(1, 400):
        term *= q / (k * (k + 1))
        total += term
        if abs(term) < 1e-18 * abs(total):
            break
    return total


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_against_references(dtype):
    xs = np.concatenate(
        [np.linspace(-12, 12, 97), [0.0, -0.0, 29.9, 30.1, 45.0, -55.0, np.inf, -np.inf, np.nan]]
    )
    n = 128
    x = np.zeros(n, dtype)
    x[: len(xs)] = xs
    i0, i1 = poisoned(n, dtype), poisoned(n, dtype)
    bessel[(1,)](x, i0, i1, N=n)
    x64 = x.astype(np.float64)
    ref0 = np.i0(x64)
    ref0[np.isinf(x64)] = np.inf
    ref1 = np.array([_i1(v) if math.isfinite(v) else math.copysign(np.inf, v) for v in x64])
    ref1[np.isnan(x64)] = np.nan
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(i0, ref0.astype(dtype), rtol=rtol, equal_nan=True)
    np.testing.assert_allclose(i1, ref1.astype(dtype), rtol=rtol, atol=1e-300, equal_nan=True)
