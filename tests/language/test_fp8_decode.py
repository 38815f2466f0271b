"""Casts from fp8: every one of the 256 bit patterns of each format, bitcast from uint8 in the
kernel and converted to fp32/fp16/fp64, against a decoder written from the formats' definitions."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.minifloat import FP8, decode
from support.run import jit, poisoned


@jit
def decode_kernel(x_ptr, out32_ptr, out16_ptr, out64_ptr, FMT: tl.constexpr):
    offs = tl.arange(0, 256)
    x = tl.load(x_ptr + offs).to(FMT, bitcast=True)
    tl.store(out32_ptr + offs, x.to(tl.float32))
    tl.store(out16_ptr + offs, x.to(tl.float16))
    tl.store(out64_ptr + offs, x.to(tl.float64))


@pytest.mark.parametrize("name", sorted(FP8))
def test_every_fp8_pattern_decodes_exactly(name):
    bits = np.arange(256, dtype=np.uint8)
    out32, out16 = poisoned(256, np.float32), poisoned(256, np.float16)
    out64 = poisoned(256, np.float64)
    decode_kernel[(1,)](bits, out32, out16, out64, FMT=getattr(tl, name))
    expect = decode(bits, *FP8[name])
    for out in (out32, out16, out64):  # every fp8 value is exact in fp16 and wider
        np.testing.assert_array_equal(out.astype(np.float64), expect)
        # -0.0 stays negative where the format has it
        np.testing.assert_array_equal(np.signbit(out[expect == 0]), np.signbit(expect[expect == 0]))


@jit
def roundtrip_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 256)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(tl.float8e5, bitcast=True).to(tl.uint8, bitcast=True))


def test_bitcast_through_fp8_keeps_the_bits():
    bits = np.arange(256, dtype=np.uint8)
    out = poisoned(256, np.uint8)
    roundtrip_kernel[(1,)](bits, out)
    np.testing.assert_array_equal(out, bits)
