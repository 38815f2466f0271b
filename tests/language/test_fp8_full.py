"""``tl.full`` / ``tl.zeros`` of an fp8 type: the number rounded to fp32 and then to the fp8
format (as Triton builds an fp8 constant), held as its bit pattern; decoding it gives the
nearest fp8 value, saturating at the format's largest finite value for e4m3fn."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.minifloat import decode
from support.run import jit, poisoned

FORMATS = {  # tl dtype: (exponent bits, mantissa bits, bias, specials)
    "float8e5": (5, 2, 15, "ieee"),
    "float8e4nv": (4, 3, 7, "fn"),
}


def nearest(value: float, fmt) -> float:
    """The fp8 value nearest to fp32(value), ties to even bits, e4m3fn saturating."""
    table = decode(np.arange(256, dtype=np.uint8), *fmt).astype(np.float64)
    v = float(np.float32(value))
    finite = np.isfinite(table)
    dist = np.where(finite, np.abs(table - v), np.inf)
    best = np.flatnonzero(dist == dist.min())
    pick = best[0] if len(best) == 1 else next(b for b in best if b % 2 == 0)
    if fmt[3] == "fn" and abs(v) > table[finite].max():
        return float(np.sign(v) * table[finite].max())
    return float(table[pick]) if not (v == 0 and np.signbit(v)) else -0.0


@jit
def full_kernel(Y, V: tl.constexpr, DT: tl.constexpr):
    x = tl.full((16,), V, DT)
    z = tl.zeros((16,), DT)
    tl.store(Y + tl.arange(0, 16), x.to(tl.float32) + z.to(tl.float32))


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("value", [0.0, 1.5, -3.3, 0.1, 300.0, 1000.0])
def test_fp8_full(name, value):
    y = poisoned(16, np.float32)
    full_kernel[(1,)](y, value, getattr(tl, name))
    np.testing.assert_array_equal(y, np.full(16, nearest(value, FORMATS[name]), np.float32))
