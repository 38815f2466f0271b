"""Masked loads give ``other`` on masked-off lanes (0 when ``other`` is omitted), on every path
that reads a load: a plain store, a masked store, block pointers, reductions and dots.

Triton's ``test_masked_load`` family is the model; the same kernels run on CUDA (marked gpu).
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host, host_np, torch_dtype
from support.run import jit

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "float16", "bfloat16",
          "float32", "float64"]  # fmt: skip


@jit
def masked_copy(
    in_ptr, out_ptr, in_size: tl.constexpr, out_size: tl.constexpr, OTHER: tl.constexpr
):
    offs = tl.arange(0, out_size)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < in_size, other=OTHER))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("size_diff", [1, 3])
@pytest.mark.parametrize("other", [0, 1])
def test_masked_load_fills_other(device, dtype, size_diff, other):
    import torch

    size = 128
    td = torch_dtype(dtype)
    src = (
        torch.randint(0, 2, (size - size_diff,))
        if dtype == "bool"
        else torch.rand(size - size_diff) * 100
    )
    src = src.to(td)
    out = torch.full((size,), 0 if dtype == "bool" else 55, dtype=td)
    if dtype == "bool":
        out = torch.full((size,), not other, dtype=td)  # poison: the opposite of `other`
    x, y = dev(src, device), dev(out, device)
    masked_copy[(1,)](x, y, size - size_diff, size, OTHER=other)
    expect = torch.cat([src, torch.full((size_diff,), other, dtype=td)])
    assert torch.equal(host(y), expect)


@jit
def scalar_mask(in_ptr, out_ptr, size: tl.constexpr, MASK: tl.constexpr, OTHER: tl.constexpr):
    offs = tl.arange(0, size)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=MASK, other=OTHER))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mask", [True, False])
@pytest.mark.parametrize("other", [0, 1])
def test_masked_load_scalar_mask(device, mask, other):
    x = np.full(128, 4.0, np.float32)
    y = dev(np.full(128, np.nan, np.float32), device)
    scalar_mask[(1,)](dev(x, device), y, 128, MASK=mask, OTHER=other)
    np.testing.assert_array_equal(host_np(y), np.full(128, 4.0 if mask else other, np.float32))


@jit
def no_other(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < n))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_omitted_other_reads_zero(device, dtype):
    # Triton leaves these lanes undefined; tilec defines them as 0 on every backend
    x = (np.arange(64) + 1).astype(dtype)
    y = dev(np.full(64, 77, dtype), device)
    no_other[(1,)](dev(x, device), y, 40, BLOCK=64)
    np.testing.assert_array_equal(host_np(y), np.where(np.arange(64) < 40, x, 0).astype(dtype))


@jit
def tile_other(in_ptr, alt_ptr, out_ptr, n, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    alt = tl.load(alt_ptr + r * C + c) * 2 + 1
    v = tl.load(in_ptr + r * C + c, mask=c < n, other=alt)
    tl.store(out_ptr + r * C + c, v)


@pytest.mark.parametrize("device", DEVICES)
def test_other_as_a_tile(device):
    rng = np.random.default_rng()
    x, alt = (
        rng.standard_normal((8, 32)).astype(np.float32),
        rng.standard_normal((8, 32)).astype(np.float32),
    )
    y = dev(np.full((8, 32), np.nan, np.float32), device)
    tile_other[(1,)](dev(x, device), dev(alt, device), y, 19, R=8, C=32)
    expect = np.where(np.arange(32)[None, :] < 19, x, alt * 2 + 1)
    np.testing.assert_array_equal(host_np(y), expect)


@jit
def other_cast(in_ptr, out_ptr, n, BLOCK: tl.constexpr, OTHER: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < n, other=OTHER))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "dtype, other, expect",
    [
        (np.int32, 2.75, 2),  # fp32 -> int32 truncates
        (np.int32, -2.75, -2),
        (np.uint8, -1, 255),  # int32 -> uint8 wraps
        (np.float32, True, 1.0),
        (np.float16, 70000, np.inf),  # int32 -> fp16 overflows to inf
        # Triton makes a Python float an fp32 tensor before casting it to the pointee type
        (np.float64, 0.1, float(np.float32(0.1))),
    ],
)
def test_scalar_other_cast_to_the_pointee_type(device, dtype, other, expect):
    x = np.arange(32).astype(dtype)
    y = dev(np.zeros(32, dtype), device)
    other_cast[(1,)](dev(x, device), y, 20, BLOCK=32, OTHER=other)
    np.testing.assert_array_equal(host_np(y), np.where(np.arange(32) < 20, x, dtype(expect)))


@jit
def runtime_other(in_ptr, out_ptr, n, fill, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=offs < n, other=fill))


@pytest.mark.parametrize("device", DEVICES)
def test_runtime_scalar_other_of_another_dtype(device):
    x = np.arange(32).astype(np.float16)
    y = dev(np.full(32, np.nan, np.float16), device)
    runtime_other[(1,)](dev(x, device), y, 9, 1234567, BLOCK=32)  # an i32 fill into fp16
    np.testing.assert_array_equal(host_np(y), np.where(np.arange(32) < 9, x, np.float16(1234567)))


@jit
def scalar_loads(in_ptr, out_ptr, n):
    tl.store(out_ptr, tl.load(in_ptr + 3, mask=n > 3, other=7.0))
    tl.store(out_ptr + 1, tl.load(in_ptr + 4, mask=n > 100))


@pytest.mark.parametrize("device", DEVICES)
def test_scalar_pointer_masked_load(device):
    x = np.arange(8, dtype=np.float32) + 1
    y = dev(np.full(2, np.nan, np.float32), device)
    scalar_loads[(1,)](dev(x, device), y, 2)
    np.testing.assert_array_equal(host_np(y), [7.0, 0.0])
    scalar_loads[(1,)](dev(x, device), y, 200)
    np.testing.assert_array_equal(host_np(y), [4.0, 5.0])


@jit
def block_ptr_pad(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr,
                  CHECK: tl.constexpr):  # fmt: skip
    src = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    v = tl.load(src, boundary_check=CHECK, padding_option=PAD)
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + r * BN + c, v)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("check", [(0, 1), (1,)])
def test_block_pointer_padding(device, pad, check):
    m, n = (5 if 0 in check else 8), 11
    x = np.random.default_rng().standard_normal((m, n)).astype(np.float32)
    y = dev(np.full((8, 16), 99.0, np.float32), device)
    block_ptr_pad[(1,)](dev(x, device), y, m, n, BM=8, BN=16, PAD=pad, CHECK=check)
    expect = np.full((8, 16), 0.0 if pad == "zero" else np.nan, np.float32)
    expect[:m, :n] = x
    np.testing.assert_array_equal(host_np(y), expect)


@jit
def masked_sums(x_ptr, out_ptr, n, OTHER: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    v = tl.load(x_ptr + r * C + c, mask=c < n, other=OTHER)
    tl.store(out_ptr + tl.arange(0, R), tl.sum(v, axis=1))
    tl.store(out_ptr + R + tl.arange(0, R), tl.max(v, axis=1))
    tl.store(out_ptr + 2 * R + tl.arange(0, C), tl.sum(v, axis=0))


@pytest.mark.parametrize("device", DEVICES)
def test_masked_load_feeding_reductions(device):
    rng = np.random.default_rng()
    x = rng.uniform(-4, 0, (4, 64)).astype(np.float32)
    y = dev(np.full(4 + 4 + 64, np.nan, np.float32), device)
    masked_sums[(1,)](dev(x, device), y, 37, OTHER=2.5, R=4, C=64)
    padded = np.where(np.arange(64)[None, :] < 37, x, 2.5).astype(np.float64)
    got = host_np(y)
    # an fp32 sum in any order is within n * 2**-24 * sum(|x|) of the exact one; the rows
    # cancel (about -74 + 67.5), so a relative tolerance alone would be too tight
    for axis, sums in ((1, got[:4]), (0, got[8:])):
        bound = padded.shape[axis] * 2.0**-24 * np.abs(padded).sum(axis)
        error = np.abs(sums - padded.sum(axis))
        assert np.all(error <= bound), (axis, error, bound)
    np.testing.assert_array_equal(got[4:8], np.full(4, 2.5, np.float32))


@jit
def masked_dot(a_ptr, b_ptr, c_ptr, M, N, K, OTHER: tl.constexpr,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm * K + rk[None, :], mask=(rm < M) & (rk[None, :] < K), other=OTHER)
    b = tl.load(b_ptr + rk[:, None] * N + rn, mask=(rk[:, None] < K) & (rn < N), other=OTHER)
    tl.store(c_ptr + rm * BN + rn, tl.dot(a, b))


@jit
def masked_dot_loop(a_ptr, b_ptr, c_ptr, M, N, K, OTHER: tl.constexpr,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # fmt: skip
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        rk = k0 * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + rm * K + rk[None, :], mask=(rm < M) & (rk[None, :] < K), other=OTHER)
        b = tl.load(b_ptr + rk[:, None] * N + rn, mask=(rk[:, None] < K) & (rn < N), other=OTHER)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm * BN + rn, acc)


def _padded(x: np.ndarray, rows: int, cols: int, fill: float) -> np.ndarray:
    out = np.full((rows, cols), fill, np.float64)
    r, c = min(rows, x.shape[0]), min(cols, x.shape[1])
    out[:r, :c] = x[:r, :c]
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("kernel", [masked_dot, masked_dot_loop])
# (32, 32, 40): two k-steps read in place, the last one is packed with 'other'
@pytest.mark.parametrize("shape", [(16, 16, 16), (13, 10, 11), (32, 32, 40)])
def test_masked_load_feeding_dot(device, dtype, kernel, shape):
    m, n, k = shape
    bk = 16
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    c = dev(np.full((32, 32), np.nan, np.float32), device)
    kernel[(1,)](dev(a, device), dev(b, device), c, m, n, k, OTHER=0.5, BM=32, BN=32, BK=bk)
    kk = bk if kernel is masked_dot else -(-k // bk) * bk
    ref = _padded(a.astype(np.float64), 32, kk, 0.5) @ _padded(b.astype(np.float64), kk, 32, 0.5)
    np.testing.assert_allclose(host_np(c), ref, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize(
    "fn, sigs",
    [
        (masked_copy, ("*fp16", "*fp16", 125, 128, 1)),
        (scalar_mask, ("*fp32", "*fp32", 128, False, 1)),
        (tile_other, ("*fp32", "*fp32", "*fp32", "i32", 8, 32)),
        (other_cast, ("*fp64", "*fp64", "i32", 32, 0.1)),
        (scalar_loads, ("*fp32", "*fp32", "i32")),
        (block_ptr_pad, ("*fp32", "*fp32", "i32", "i32", 8, 16, "nan", (0, 1))),
        (masked_dot_loop, ("*fp16", "*fp16", "*fp32", "i32", "i32", "i32", 0.5, 32, 32, 16)),
    ],
)
def test_cuda_lowering_assembles(fn, sigs):
    assert_assembles(fn, *sigs)


@jit
def wide_other(in_ptr, alt_ptr, out_ptr, n, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)
    alt = tl.load(alt_ptr + r * C + c[None, :])
    v = tl.load(in_ptr + c, mask=c < n, other=alt)  # a [C] load widened by a [R, C] other
    tl.store(out_ptr + r * C + c[None, :], v)


@pytest.mark.parametrize("device", DEVICES)
def test_other_wider_than_the_pointers(device):
    rng = np.random.default_rng()
    x, alt = (
        rng.standard_normal(16).astype(np.float32),
        rng.standard_normal((4, 16)).astype(np.float32),
    )
    y = dev(np.full((4, 16), np.nan, np.float32), device)
    wide_other[(1,)](dev(x, device), dev(alt, device), y, 11, R=4, C=16)
    np.testing.assert_array_equal(
        host_np(y), np.where(np.arange(16)[None, :] < 11, x[None, :], alt)
    )


def test_cuda_lowering_of_a_wide_other_assembles():
    assert_assembles(wide_other, "*fp32", "*fp32", "*fp32", "i32", 4, 16)
