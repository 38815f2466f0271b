"""Casts to fp8 (from fp32, fp64, fp16, bf16 and integers), loads and stores through fp8
pointers, against a reference that picks from each format's table of values: the nearest (ties
to the even pattern) or the one toward zero; beyond the range, infinities included, the largest
finite value of that sign in every format (Triton's clamping); NaN stays NaN."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.minifloat import FP8, decode
from support.run import jit, poisoned, rng


def reference(x: np.ndarray, name: str, rounding: str) -> np.ndarray:
    e, m, bias, specials = FP8[name]
    patterns = np.arange(128, dtype=np.uint8)  # the non-negative half
    values = decode(patterns, e, m, bias, specials)
    keep = np.isfinite(values)
    patterns, values = patterns[keep], values[keep]
    top = values.max()
    mag = np.abs(x.astype(np.float64))
    below = np.clip(np.searchsorted(values, mag, side="right") - 1, 0, len(values) - 1)
    above = np.clip(below + 1, 0, len(values) - 1)
    if rounding == "rtz":
        pick = below
    else:
        d_lo, d_hi = mag - values[below], values[above] - mag
        odd_lo = patterns[below] & 1
        pick = np.where((d_hi < d_lo) | ((d_hi == d_lo) & (odd_lo == 1)), above, below)
    out = patterns[pick].astype(np.uint8)
    out = np.where(mag > top, patterns[-1], out)  # infinities too: Triton clamps
    negative = np.signbit(x)
    if specials == "fnuz":
        negative &= out != 0
    out = np.where(negative, out | 0x80, out).astype(np.uint8)
    nan = 0x80 if specials == "fnuz" else 0x7F
    return np.where(np.isnan(x), np.uint8(nan), out)


def samples(dtype) -> np.ndarray:
    g = rng()
    x = g.standard_normal(3000) * 2.0 ** g.integers(-24, 18, 3000)
    # every representable value of every format and the midpoints between them
    table = np.unique(np.concatenate([decode(np.arange(256), *f) for f in FP8.values()]))
    table = table[np.isfinite(table)]
    mids = (table[1:] + table[:-1]) / 2
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30, -1e-30]
    with np.errstate(over="ignore"):  # beyond fp16's range is infinity, as it should be
        return np.concatenate([x, table, mids, specials]).astype(dtype)


@jit
def to_fp8_kernel(x_ptr, out_ptr, n, FMT: tl.constexpr, RND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(
        out_ptr + offs, x.to(FMT, fp_downcast_rounding=RND).to(tl.uint8, bitcast=True), mask=mask
    )


@pytest.mark.parametrize("name", sorted(FP8))
@pytest.mark.parametrize("src", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_float_to_fp8_rounds_like_the_table(name, src, rounding):
    x = samples(src)
    out = poisoned(x.size, np.uint8)
    to_fp8_kernel[(x.size + 1023) // 1024,](x, out, x.size, getattr(tl, name), rounding, 1024)
    expect = reference(x, name, rounding)
    bad = np.flatnonzero(out != expect)
    assert bad.size == 0, (x[bad][:8], out[bad][:8], expect[bad][:8])


@jit
def int_to_fp8_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.float8e5).to(tl.uint8, bitcast=True))


def test_integers_to_fp8():
    x = rng().integers(-70000, 70000, 256).astype(np.int32)
    out = poisoned(256, np.uint8)
    int_to_fp8_kernel[(1,)](x, out, BLOCK=256)
    np.testing.assert_array_equal(out, reference(x.astype(np.float64), "float8e5", "rtne"))


@jit
def fp8_memory_kernel(x_ptr, bytes_ptr, out_ptr, n, FMT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    p8 = bytes_ptr.to(tl.pointer_type(FMT))
    tl.store(p8 + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)  # fp32 stored as fp8
    back = tl.load(p8 + offs, mask=mask, other=-1.5)  # fp8 loaded, masked lanes from other
    tl.store(out_ptr + offs, back.to(tl.float32))


@pytest.mark.parametrize("name", sorted(FP8))
def test_store_and_load_through_fp8_pointers(name):
    n, block = 100, 128
    x = (rng().standard_normal(n) * 8).astype(np.float32)
    raw, out = poisoned(block, np.uint8), poisoned(block, np.float32)
    fp8_memory_kernel[(1,)](x, raw, out, n, getattr(tl, name), BLOCK=block)
    bits = reference(x, name, "rtne")
    np.testing.assert_array_equal(raw[:n], bits)
    np.testing.assert_array_equal(out[:n], decode(bits, *FP8[name]).astype(np.float32))
    np.testing.assert_array_equal(out[n:], np.full(block - n, -1.5, np.float32))
