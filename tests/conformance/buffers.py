"""Arrays for the conformance tests: fresh random inputs, NaN-poisoned outputs, and outputs
embedded in a guard region of a sentinel value so that any write outside a kernel's mask (even
of NaN, which masked-off lanes may hold) is caught."""

from __future__ import annotations

import numpy as np


def rng() -> np.random.Generator:
    """A fresh, unseeded generator: every run sees new inputs."""
    return np.random.default_rng()


def uniform(shape, dtype, lo: float = -2.0, hi: float = 2.0) -> np.ndarray:
    return rng().uniform(lo, hi, shape).astype(dtype)


def poisoned(shape, dtype) -> np.ndarray:
    """An output whose every element is wrong (NaN, or a sentinel integer) until written."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype)
    return np.full(shape, np.iinfo(dtype).max // 3 + 7, dtype)


GUARD = -7777.0  # exact in every float type used here; no kernel result equals it


def guarded(shape, dtype, pad: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """(view, whole): a poisoned ``view`` of ``shape`` inside ``whole``, which has ``pad`` extra
    GUARD elements after every row and a GUARD row after the last one, so rows are strided."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    whole = np.full((rows + 1, cols + pad), GUARD, dtype)
    view = whole[:rows, :cols]
    view[...] = poisoned(view.shape, dtype)
    return (view[0] if len(shape) == 1 else view), whole


def assert_guard_untouched(view: np.ndarray, whole: np.ndarray) -> None:
    """Every element of ``whole`` outside ``view`` still holds GUARD."""
    outside = np.ones(whole.shape, bool)
    outside[: view.shape[0] if view.ndim == 2 else 1, : view.shape[-1]] = False
    assert (whole[outside] == GUARD).all(), "the kernel wrote outside its mask"


def padded_input(a: np.ndarray, pad: int = 3) -> np.ndarray:
    """``a`` copied into strided rows followed by NaN, so that an unmasked read shows up."""
    view, whole = guarded(a.shape, a.dtype, pad=pad)
    whole[...] = np.nan
    view[...] = a
    return view
