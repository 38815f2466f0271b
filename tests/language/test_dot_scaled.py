"""``tl.dot_scaled``: microscaled operands (e2m1, e4m3, e5m2, bf16, fp16) with e8m0 scales,
against a float64 reference that decodes every element and scale from its definition."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.minifloat import E2M1, FP8, decode
from support.run import jit, poisoned, rng
from tilec.errors import CompileError

PACKED = {"e2m1": 2}


def _bits(shape, fmt):
    """Random finite patterns of ``fmt`` (NaN/inf patterns remapped to small numbers)."""
    g = rng()
    if fmt == "fp16":
        return g.standard_normal(shape).astype(np.float16).view(np.uint16)
    if fmt == "bf16":
        return (g.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    x = g.integers(0, 256, shape, dtype=np.uint8)
    if fmt == "e4m3":
        x[(x & 0x7F) == 0x7F] = 0x3A
    if fmt == "e5m2":
        x[(x & 0x7C) == 0x7C] &= 0x83
    return x


def _values(x, fmt, axis):
    """float64 values of an operand; e2m1 unpacks along ``axis`` (low nibble first)."""
    if fmt == "e2m1":
        lo, hi = decode(x & 0xF, *E2M1), decode(x >> 4, *E2M1)
        both = np.stack([lo, hi], axis=axis + 1 if axis >= 0 else axis)
        shape = list(x.shape)
        shape[axis] *= 2
        return both.reshape(shape)
    if fmt == "e4m3":
        return decode(x, *FP8["float8e4nv"])
    if fmt == "e5m2":
        return decode(x, *FP8["float8e5"])
    if fmt == "fp16":
        return x.view(np.float16).astype(np.float64)
    return (x.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _scale(s, factor):
    value = np.where(s == 0, 0.0, 2.0 ** (s.astype(np.float64) - 127))
    value = np.where(s == 255, np.nan, value)
    return np.repeat(value, factor, axis=-1)


def reference(a, sa, fa, b, sb, fb, a_axis=-1, b_axis=-2, factor=32):
    av, bv = _values(a, fa, a_axis), _values(b, fb, b_axis)
    if sa is not None:
        av = av * _scale(sa, factor)
    if sb is not None:
        bv = bv * np.swapaxes(_scale(sb, factor), -1, -2)
    return av @ bv


@jit
def dot_scaled_kernel(
    a_ptr, sa_ptr, b_ptr, sb_ptr, acc_ptr, out_ptr,
    AM: tl.constexpr, AK: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr,
    M: tl.constexpr, N: tl.constexpr, KS: tl.constexpr,
    FA: tl.constexpr, FB: tl.constexpr, A_PACK_K: tl.constexpr, B_PACK_K: tl.constexpr,
    FAST: tl.constexpr,
):  # fmt: skip
    a = tl.load(a_ptr + tl.arange(0, AM)[:, None] * AK + tl.arange(0, AK)[None, :])
    b = tl.load(b_ptr + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
    sa = sa_ptr
    if sa_ptr is not None:
        sa = tl.load(sa_ptr + tl.arange(0, M)[:, None] * KS + tl.arange(0, KS)[None, :])
    sb = sb_ptr
    if sb_ptr is not None:
        sb = tl.load(sb_ptr + tl.arange(0, N)[:, None] * KS + tl.arange(0, KS)[None, :])
    acc = acc_ptr
    if acc_ptr is not None:
        acc = tl.load(acc_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.dot_scaled(
        a, sa, FA, b, sb, FB, acc, fast_math=FAST, lhs_k_pack=A_PACK_K, rhs_k_pack=B_PACK_K
    )
    tl.store(out_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


def run(fa, fb, m=32, n=32, k=64, scale_a=True, scale_b=True, pack_k=(True, True), acc=None,
        fast=False, sa=None, sb=None):  # fmt: skip
    pa, pb = PACKED.get(fa, 1), PACKED.get(fb, 1)
    a_shape = (m, k // pa) if pack_k[0] else (m // pa, k)
    b_shape = (k // pb, n) if pack_k[1] else (k, n // pb)
    a, b = _bits(a_shape, fa), _bits(b_shape, fb)
    g = rng()
    if scale_a and sa is None:
        sa = g.integers(110, 140, (m, k // 32), dtype=np.uint8)
    if scale_b and sb is None:
        sb = g.integers(110, 140, (n, k // 32), dtype=np.uint8)
    out = poisoned((m, n), np.float32)
    dot_scaled_kernel[(1,)](
        a, sa, b, sb, acc, out, *a_shape, *b_shape, m, n, k // 32, fa, fb, *pack_k, fast
    )
    expect = reference(a, sa, fa, b, sb, fb, -1 if pack_k[0] else -2, -2 if pack_k[1] else -1)
    if acc is not None:
        expect = expect + acc
    return out, expect


def check(out, expect):
    # fp32 accumulation of exact products: relative to the sum of magnitudes
    np.testing.assert_allclose(
        out, expect, rtol=1e-5, atol=1e-6 * max(1.0, np.nanmax(np.abs(expect)))
    )


FORMATS = ["e2m1", "e4m3", "e5m2", "bf16", "fp16"]


@pytest.mark.parametrize("fa", FORMATS)
@pytest.mark.parametrize("fb", FORMATS)
def test_every_format_pair(fa, fb):
    check(*run(fa, fb))


@pytest.mark.parametrize("scale_a, scale_b", [(True, False), (False, True), (False, False)])
def test_either_scale_may_be_none(scale_a, scale_b):
    check(*run("e2m1", "e4m3", scale_a=scale_a, scale_b=scale_b))


@pytest.mark.parametrize("pack_k", [(False, True), (True, False), (False, False)])
def test_e2m1_packed_along_m_or_n(pack_k):
    check(*run("e2m1", "e2m1", m=64, n=32, pack_k=pack_k))


def test_accumulator_and_rectangular_shapes():
    acc = rng().standard_normal((16, 64)).astype(np.float32)
    check(*run("e5m2", "e2m1", m=16, n=64, k=128, acc=acc))


def test_scale_255_is_nan_and_0_is_zero():
    m, n, k = 16, 16, 64
    sa = np.full((m, k // 32), 127, np.uint8)
    sa[3, 1] = 255
    sa[5, :] = 0
    out, expect = run("e4m3", "e4m3", m=m, n=n, k=k, sa=sa)
    assert np.isnan(out[3]).all() and not np.isnan(np.delete(out, 3, axis=0)).any()
    np.testing.assert_array_equal(out[5], np.zeros(n, np.float32))
    check(out, expect)


def test_fast_math_gives_the_same_finite_result():
    out, expect = run("e2m1", "fp16", fast=True)
    check(out, expect)


@jit
def dot_scaled_3d_kernel(a_ptr, sa_ptr, b_ptr, out_ptr, B: tl.constexpr, M: tl.constexpr,
                         N: tl.constexpr, K: tl.constexpr):  # fmt: skip
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(
        a_ptr + rb * M * K + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :]
    )
    b = tl.load(
        b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :]
    )
    ks: tl.constexpr = K // 32
    sa = tl.load(
        sa_ptr + rb * M * ks + tl.arange(0, M)[None, :, None] * ks + tl.arange(0, ks)[None, None, :]
    )
    c = tl.dot_scaled(a.to(tl.float8e4nv, bitcast=True), sa, "e4m3", b, None, "bf16")
    tl.store(
        out_ptr + rb * M * N + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :],
        c,
    )


def test_batched_operands_and_fp8_typed_input():
    bsz, m, n, k = 2, 16, 16, 64
    a, b = _bits((bsz, m, k), "e4m3"), _bits((bsz, k, n), "bf16")
    sa = rng().integers(120, 135, (bsz, m, k // 32), dtype=np.uint8)
    out = poisoned((bsz, m, n), np.float32)
    dot_scaled_3d_kernel[(1,)](a, sa, b, out, bsz, m, n, k)
    check(out, reference(a, sa, "e4m3", b, None, "bf16"))


@jit
def mismatched_scales_kernel():
    a = tl.full((32, 64), 0, tl.uint8)
    b = tl.full((64, 32), 0, tl.uint8)
    sa = tl.full((32, 4), 0, tl.uint8)
    sb = tl.full((32, 2), 0, tl.uint8)
    tl.dot_scaled(a, sa, "e5m2", b, sb, "e5m2")


@jit
def bad_format_kernel(FMT: tl.constexpr, OUT: tl.constexpr):
    a = tl.full((32, 64), 0, tl.uint8)
    tl.dot_scaled(a, None, FMT, a.trans(), None, "e4m3", out_dtype=OUT)


def test_errors_carry_tritons_messages():
    with pytest.raises(CompileError) as e:
        mismatched_scales_kernel[(1,)]()
    assert e.value.message == "Operands must have the same scale factor; (lhs: 16 vs rhs: 32)"
    with pytest.raises(CompileError, match="Invalid float format: e3m2"):
        bad_format_kernel[(1,)]("e3m2", tl.float32)
    with pytest.raises(CompileError, match="Only float32 is supported for out_dtype"):
        bad_format_kernel[(1,)]("e4m3", tl.float16)
    with pytest.raises(CompileError, match=r"Unexpected dtype for bf16\. Got u8"):
        bad_format_kernel[(1,)]("bf16", tl.float32)


@jit
def dot_scaled_loop_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, out_ptr, M: tl.constexpr,
                           N: tl.constexpr, K: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    # a K loop as in Triton's mxfp matmuls: e2m1 lhs (two per byte), e5m2 rhs, both scaled
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    acc = tl.zeros((M, N), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * (K // 2) + (k // 2 + tl.arange(0, BK // 2))[None, :])
        b = tl.load(b_ptr + (k + tl.arange(0, BK))[:, None] * N + rn[None, :])
        ks = k // 32 + tl.arange(0, BK // 32)
        sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + ks[None, :])
        sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + ks[None, :])
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e5m2", acc)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc)


def test_accumulating_over_a_k_loop():
    m, n, k = 16, 32, 256
    a, b = _bits((m, k // 2), "e2m1"), _bits((k, n), "e5m2")
    g = rng()
    sa = g.integers(115, 135, (m, k // 32), dtype=np.uint8)
    sb = g.integers(115, 135, (n, k // 32), dtype=np.uint8)
    out = poisoned((m, n), np.float32)
    dot_scaled_loop_kernel[(1,)](a, sa, b, sb, out, m, n, k, 64)
    check(out, reference(a, sa, "e2m1", b, sb, "e5m2"))


def test_int8_scales_are_e8m0_bytes():
    # Triton's scale operand is a signless byte: int8 -128 is 0x80, 2.0 (Triton's mxfp matmul
    # test builds its constant scale as tl.full(shape, (128).to(tl.int8)))
    m, n, k = 16, 16, 64
    a, b = _bits((m, k), "e4m3"), _bits((k // 2, n), "e2m1")
    g = rng()
    sa = g.integers(115, 140, (m, k // 32), dtype=np.uint8)
    sa[0, :] = 128
    sb = g.integers(115, 140, (n, k // 32), dtype=np.uint8)
    sb[1, 0] = 255
    out = poisoned((m, n), np.float32)
    dot_scaled_kernel[(1,)](
        a, sa.view(np.int8), b, sb.view(np.int8), None, out,
        m, k, k // 2, n, m, n, k // 32, "e4m3", "e2m1", True, True, False,
    )  # fmt: skip
    assert np.isnan(out[:, 1]).all()
    check(out, reference(a, sa, "e4m3", b, sb, "e2m1"))


@jit
def int16_scale_kernel(out_ptr):
    a = tl.full((32, 64), 0x38, tl.uint8)
    s = tl.full((32, 2), 127, tl.int16)
    c = tl.dot_scaled(a, s, "e4m3", a.trans(), None, "e4m3")
    tl.store(out_ptr + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


def test_wider_integer_scales_are_refused():
    with pytest.raises(CompileError, match="integer scales must be e8m0 bytes"):
        int16_scale_kernel[(1,)](poisoned((32, 32), np.float32))
