"""Exact numeric building blocks of the reference: integer wrap-around, correctly rounded float
conversions (one rounding, never through an intermediate format), bf16 bits, ulp distances."""

from __future__ import annotations

import numpy as np

from .dtypes import BF16, FLOAT_FORMAT, DType, int_range


def wrap(values: np.ndarray, t: DType) -> np.ndarray:
    """Python ints (an object array) reduced modulo 2**bits into ``t``."""
    values = np.asarray(values, dtype=object)
    mask = (1 << t.bits) - 1
    half = 1 << (t.bits - 1)
    flat = [int(v) & mask for v in values.reshape(-1)]
    if t.kind == "i":
        flat = [v - (1 << t.bits) if v >= half else v for v in flat]
    if t.is_bool:
        return np.array(flat, dtype=bool).reshape(values.shape)
    return np.array(flat, dtype=t.np_value).reshape(values.shape)


def as_ints(values: np.ndarray) -> np.ndarray:
    """An object array of Python ints (exact arithmetic of any width)."""
    return np.array([int(v) for v in values.reshape(-1)], dtype=object).reshape(values.shape)


def round_float(x: np.ndarray, t: DType, rounding: str = "rtne") -> np.ndarray:
    """float64 values rounded once, to nearest even, into float type ``t`` (overflow to inf);
    ``rounding="rtz"``: toward zero (a finite value stays finite)."""
    x = np.asarray(x, dtype=np.float64)
    if t.name == "float64":
        return x.copy()
    p, emin, biggest = FLOAT_FORMAT[t.name]
    out = x.copy()
    ok = np.isfinite(x) & (x != 0)
    v = x[ok]
    _, e = np.frexp(v)
    q = np.maximum(e - 1, emin) - (p - 1)  # exponent of the last kept bit
    step = np.trunc if rounding == "rtz" else np.rint
    with np.errstate(over="ignore"):  # rounding up past the largest double: inf, as wanted
        r = np.ldexp(step(np.ldexp(v, -q)), q)
    big = np.abs(r) > biggest
    r[big] = np.copysign(biggest if rounding == "rtz" else np.inf, r[big])
    out[ok] = r
    return out.astype(t.np_value)


def round_int(values: np.ndarray, t: DType) -> np.ndarray:
    """Python ints converted to float type ``t`` with one rounding (exact beyond 2**53 too)."""
    p, _, _ = FLOAT_FORMAT[t.name]
    out = []
    for v in values.reshape(-1):
        v = int(v)
        extra = abs(v).bit_length() - p
        if extra > 0:
            q, r = divmod(abs(v), 1 << extra)
            half = 1 << (extra - 1)
            if r > half or (r == half and q & 1):
                q += 1
            v = (q << extra) * (1 if v >= 0 else -1)
        out.append(float(v) if abs(v) < 2**1024 else np.copysign(np.inf, v))
    return round_float(np.array(out, dtype=np.float64).reshape(values.shape), t)


def to_storage(values: np.ndarray, t: DType) -> np.ndarray:
    """Reference values as the bytes a kernel reads (bf16 -> its uint16 bits)."""
    if t == BF16:
        return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(values, dtype=t.np_storage)


def from_storage(raw: np.ndarray, t: DType) -> np.ndarray:
    if t == BF16:
        return (raw.astype(np.uint32) << 16).view(np.float32)
    return raw.astype(t.np_value)


def ordered(x: np.ndarray) -> np.ndarray:
    """Floats mapped to integers whose difference counts ulps (+0 and -0 both map to 0)."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        i = x.view(np.int64).astype(object)
        top = 1 << 63
    else:
        i = (
            x.astype(np.float32).view(np.int32).astype(object)
            if x.dtype != np.float32
            else (x.view(np.int32).astype(object))
        )
        top = 1 << 31
    return np.array([v if v >= 0 else -(v + top) for v in i.reshape(-1)], dtype=object).reshape(
        x.shape
    )


def ulps(got: np.ndarray, want: np.ndarray, t: DType) -> np.ndarray:
    """The distance in ulps of ``t`` between two arrays of ``t`` values (NaN pairs: 0)."""
    if t.bits == 16:
        # both are exact in fp32; one fp16/bf16 ulp is 2**(24 - p) fp32 ulps for normals
        scale = 1 << (24 - FLOAT_FORMAT[t.name][0])
        d = np.abs(ordered(got.astype(np.float32)) - ordered(want.astype(np.float32)))
        d = np.array([-(-int(v) // scale) for v in d.reshape(-1)], dtype=object).reshape(d.shape)
    else:
        d = np.abs(ordered(got) - ordered(want))
    both_nan = np.isnan(got) & np.isnan(want)
    one_nan = np.isnan(got) != np.isnan(want)
    d = np.where(both_nan, 0, d)
    return np.where(one_nan, 1 << 70, d)


def same_bits(got: np.ndarray, want: np.ndarray, t: DType) -> np.ndarray:
    """Lane-wise bit equality; any NaN equals any NaN (payloads are not specified)."""
    if t.is_float:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w)
        return both_nan | ((g == w) & (np.signbit(g) == np.signbit(w)))
    return got == want


def in_int_range(x: np.ndarray, t: DType) -> np.ndarray:
    lo, hi = int_range(t)
    with np.errstate(invalid="ignore"):
        r = np.trunc(x.astype(np.float64))
        return np.isfinite(r) & (r >= float(lo)) & (r < float(hi + 1))  # hi + 1: a power of 2
