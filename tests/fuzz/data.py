"""Input data for a case: ordinary values mixed with edge values (0, -1, extremes, -0.0,
infinities, NaN, subnormals) at the case's ``special`` rate, all from the case's seed."""

from __future__ import annotations

import numpy as np

from . import dtypes as D
from .dtypes import DType
from .numerics import round_float

RATES = (0.0, 0.05, 0.2, 0.5)


_INT_EDGES = (127.5, 128.0, -128.5, -129.0, 255.5, 256.0, -0.75, 32767.5, 32768.0, -32769.0,
              65535.5, 65536.0, 2.0**31, -(2.0**31), -(2.0**31) - 512, 2.0**32, 2.0**63,
              -(2.0**63), 2.0**64, 4294967040.0, 9.223372036854775e18)  # fmt: skip


def values(rng: np.random.Generator, t: DType, n: int, special: int) -> np.ndarray:
    """``n`` reference values of ``t``."""
    edge = rng.random(n) < RATES[special]
    if t.is_bool:
        return rng.random(n) < 0.5
    if t.is_int:
        lo, hi = D.int_range(t)
        wide = rng.integers(lo, hi, size=n, endpoint=True, dtype=t.np_value)
        small = np.clip(rng.integers(-10, 11, size=n), lo, hi).astype(t.np_value)
        out = np.where(rng.random(n) < 0.5, small, wide)
        edges = np.array([x for x in (0, 1, -1, lo, hi) if lo <= x <= hi], dtype=object)
        pick = rng.integers(0, len(edges), size=n)
        out[edge] = np.array([int(edges[i]) for i in pick[edge]], dtype=t.np_value)
        return out
    _, emin, biggest = D.FLOAT_FORMAT[t.name]
    grid = rng.integers(-32, 33, size=n) / 4.0
    wide = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3, size=n)
    out = np.where(rng.random(n) < 0.5, grid, wide)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** (emin - 2), biggest, 1.0, -1.0])
    # where conversions to integers saturate, and the halves before them
    edges = np.concatenate([edges, [x for x in _INT_EDGES if abs(x) <= biggest]])
    out[edge] = edges[rng.integers(0, len(edges), size=int(edge.sum()))]
    return round_float(out, t)


def ordinary(rng: np.random.Generator, t: DType, n: int) -> np.ndarray:
    """Values without edge cases (the initial contents of an atomic's target)."""
    if t.is_float:
        return round_float(rng.integers(-64, 65, size=n) / 2.0, t)
    lo, hi = D.int_range(t)
    return rng.integers(max(lo, -1000), min(hi, 1000), size=n, endpoint=True).astype(t.np_value)
