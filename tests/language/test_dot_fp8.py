"""``tl.dot`` of fp8 tiles (any pair of the e4m3fn, e5m2, e4m3fnuz, e5m2fnuz formats): the
operands are decoded exactly and the products summed in fp32, against a float64 reference."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.minifloat import FP8, decode
from support.run import jit, poisoned, rng
from tilec.errors import CompileError


@jit
def fp8_dot_kernel(
    a_ptr, b_ptr, out_ptr, FA: tl.constexpr, FB: tl.constexpr, M: tl.constexpr,
    N: tl.constexpr, K: tl.constexpr, IMPRECISE: tl.constexpr,
):  # fmt: skip
    pa = a_ptr.to(tl.pointer_type(FA))
    pb = b_ptr.to(tl.pointer_type(FB))
    a = tl.load(pa + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(pb + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot(a, b, max_num_imprecise_acc=IMPRECISE)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def _finite_bits(shape, name):
    bits = rng().integers(0, 256, shape, dtype=np.uint8)
    values = decode(bits, *FP8[name])
    bits[~np.isfinite(values)] = 0x31
    return bits


@pytest.mark.parametrize(
    "fa, fb",
    [("float8e4nv", "float8e4nv"), ("float8e5", "float8e5"), ("float8e4nv", "float8e5"),
     ("float8e4b8", "float8e5b16")],
)  # fmt: skip
@pytest.mark.parametrize("imprecise", [None, 32])
def test_fp8_dot(fa, fb, imprecise):
    m, n, k = 32, 16, 64
    a, b = _finite_bits((m, k), fa), _finite_bits((k, n), fb)
    out = poisoned((m, n), np.float32)
    fp8_dot_kernel[(1,)](a, b, out, getattr(tl, fa), getattr(tl, fb), m, n, k, imprecise)
    expect = decode(a, *FP8[fa]) @ decode(b, *FP8[fb])
    scale = np.abs(decode(a, *FP8[fa])) @ np.abs(decode(b, *FP8[fb]))
    assert np.all(np.abs(out - expect) <= k * 2.0**-24 * scale)  # fp32 summation of exact products


def test_imprecise_accumulation_beyond_k_is_an_error():
    a = np.zeros((16, 16), np.uint8)
    out = poisoned((16, 16), np.float32)
    with pytest.raises(CompileError, match=r"max_num_imprecise_acc \(32\) must be <= K \(16\)"):
        fp8_dot_kernel[(1,)](a, a, out, tl.float8e5, tl.float8e5, 16, 16, 16, 32)
