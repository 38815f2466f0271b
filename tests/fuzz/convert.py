"""Conversions between element types in the reference (``x.to(t)``, bitcasts, the implicit
casts of promotion and of a store), each returning the lanes where the result is undefined."""

from __future__ import annotations

import math

import numpy as np

from .dtypes import BF16, F64, DType, int_range
from .numerics import as_ints, from_storage, in_int_range, round_float, round_int, to_storage, wrap


def literal(value: bool | int | float, t: DType, shape: tuple[int, ...]) -> np.ndarray:
    """A Python number converted into ``t`` (the generator keeps them exactly convertible)."""
    if t.is_float:
        return np.full(shape, round_float(np.array([float(value)]), t)[0], dtype=t.np_value)
    if t.is_bool:
        return np.full(shape, bool(value))
    return wrap(np.full(shape, int(value), dtype=object), t)


def convert(
    x: np.ndarray, src: DType, dst: DType, rounding: str = "rtne"
) -> tuple[np.ndarray, np.ndarray]:
    """``x.to(dst)`` (``fp_downcast_rounding=rounding``): values and undefined lanes."""
    undefined = np.zeros(x.shape, dtype=bool)
    if src == dst:
        return x, undefined
    if dst.is_bool:
        return x != 0, undefined
    if src.is_bool:
        return (x.astype(np.float64) if dst.is_float else x.astype(np.int64)).astype(
            dst.np_value
        ), undefined
    if src.is_int and dst.is_int:
        return wrap(as_ints(x), dst), undefined
    if src.is_int:
        if src.bits <= 32:
            return round_float(x.astype(np.float64), dst), undefined
        if dst == BF16:  # documented: 64-bit integers reach bf16 through fp64 (two roundings)
            return round_float(round_int(as_ints(x), F64), dst), undefined
        return round_int(as_ints(x), dst), undefined
    if dst.is_float:
        return round_float(x.astype(np.float64), dst, rounding), undefined
    # docs/language/semantics.md: NaN gives 0, out-of-range values saturate
    w = x.astype(np.float64)
    lo, hi = int_range(dst)
    ok = in_int_range(x, dst)
    safe = np.where(ok, np.trunc(np.where(ok, w, 0.0)), 0.0)
    ints = np.array([int(v) for v in safe.reshape(-1)], dtype=object).reshape(x.shape)
    # Python ints in an object array: NumPy 2.5 refuses 2**64 - 1 in np.where's int64 path
    limits = [0 if math.isnan(v) else hi if v > 0 else lo for v in w.reshape(-1).tolist()]
    ints = np.where(ok, ints, np.array(limits, dtype=object).reshape(x.shape))
    return wrap(ints, dst), undefined


def bitcast(x: np.ndarray, src: DType, dst: DType) -> tuple[np.ndarray, np.ndarray]:
    """Same-width reinterpretation; a NaN's payload is unspecified, so its lanes are undefined."""
    raw = to_storage(x, src)
    out = from_storage(raw.view(np.dtype(dst.np_storage)), dst)
    undefined = np.isnan(x.astype(np.float64)) if src.is_float else np.zeros(x.shape, bool)
    return out, undefined
