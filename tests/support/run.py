"""Run test kernels on the CPU backend and make NaN-poisoned outputs and fresh random inputs."""

from __future__ import annotations

import numpy as np
import pytest

import tilec


def jit(fn):
    """``tilec.jit(fn)``, skipping the test when the CPU backend is not available."""
    pytest.importorskip("tilec.backends.cpu")
    return tilec.jit(fn)


def rng() -> np.random.Generator:
    return np.random.default_rng()


def poisoned(shape, dtype) -> np.ndarray:
    """An output buffer whose every element is wrong until the kernel writes it."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype)
    if dtype.kind == "b":
        return np.zeros(shape, dtype)
    return np.full(shape, np.iinfo(dtype).max // 3 + 7, dtype)


def random(shape, dtype, lo=-4, hi=4) -> np.ndarray:
    dtype = np.dtype(dtype)
    g = rng()
    if dtype.kind == "f":
        return g.uniform(lo, hi, shape).astype(dtype)
    if dtype.kind == "b":
        return g.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    return g.integers(max(lo, info.min), min(hi, info.max) + 1, shape).astype(dtype)
