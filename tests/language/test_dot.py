"""tl.dot: fp32/fp16/bf16/int8 inputs, acc=, out_dtype, and a tiled matmul with a K loop."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    DT: tl.constexpr,
    PRECISION: tl.constexpr = None,
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(
            a_ptr + rm[:, None] * K + (k + rk)[None, :],
            mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + (k + rk)[:, None] * N + rn[None, :],
            mask=((k + rk)[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a.to(DT), b.to(DT), acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize(
    ("dt", "precision", "rtol"),
    [
        (tl.float32, "ieee", 1e-5),
        (tl.float32, None, 1e-2),  # the default: tf32 on GPUs with tensor cores, as in Triton
        (tl.float32, "tf32", 1e-2),
        (tl.float16, None, 2e-2),
        (tl.bfloat16, None, 5e-2),
    ],
)
def test_tiled_matmul(dt, precision, rtol):
    m, n, k = 40, 36, 50
    a, b = random((m, k), np.float32, -1, 1), random((k, n), np.float32, -1, 1)
    c = poisoned((m, n), np.float32)
    matmul[(3, 3)](a, b, c, m, n, k, BM=16, BN=16, BK=16, DT=dt, PRECISION=precision)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=rtol, atol=rtol)


@jit
def int8_dot(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    c = tl.dot(a, b)
    tl.static_assert(c.dtype == tl.int32)
    tl.store(c_ptr + r[:, None] * N + r[None, :], c)


def test_int8_dot_accumulates_in_int32():
    a, b = random((16, 16), np.int8, -128, 127), random((16, 16), np.int8, -128, 127)
    c = poisoned((16, 16), np.int32)
    int8_dot[(1,)](a, b, c, N=16)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b)


@jit
def fp16_out(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    c = tl.dot(a, b, out_dtype=tl.float16, input_precision="ieee")
    tl.static_assert(c.dtype == tl.float16)
    tl.store(c_ptr + r[:, None] * N + r[None, :], c)


def test_fp16_out_dtype():
    a, b = random((16, 16), np.float16, -1, 1), random((16, 16), np.float16, -1, 1)
    c = poisoned((16, 16), np.float16)
    fp16_out[(1,)](a, b, c, N=16)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=2e-2, atol=2e-2)


@jit
def fp16_acc(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    acc = tl.full((N, N), 0.5, tl.float16)
    c = tl.dot(a, b, acc, input_precision="ieee")  # no out_dtype: the accumulator's dtype
    tl.static_assert(c.dtype == tl.float16)
    tl.store(c_ptr + r[:, None] * N + r[None, :], c)


def test_fp16_accumulator_sets_the_result_dtype():
    a, b = random((16, 16), np.float16, -1, 1), random((16, 16), np.float16, -1, 1)
    c = poisoned((16, 16), np.float16)
    fp16_acc[(1,)](a, b, c, N=16)
    np.testing.assert_allclose(c, 0.5 + a.astype(np.float64) @ b, rtol=2e-2, atol=2e-2)


@jit
def block_ptr_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pm, pn = tl.program_id(0), tl.program_id(1)
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (N, 1), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b, input_precision="ieee")
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(c_blk, acc, boundary_check=(0, 1))


def test_block_pointer_matmul():
    m, n, k = 33, 47, 70
    a, b = random((m, k), np.float32, -1, 1), random((k, n), np.float32, -1, 1)
    c = poisoned((m, n), np.float32)
    block_ptr_matmul[(3, 3)](a, b, c, m, n, k, BM=16, BN=16, BK=16)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


@jit
def batched_dot(x_ptr, y_ptr, z_ptr, RANK: tl.constexpr, TRANS: tl.constexpr):
    n: tl.constexpr = 64 << RANK
    x = tl.load(x_ptr + tl.arange(0, n)).reshape([2] * (RANK - 2) + [16, 16])
    y = tl.load(y_ptr + tl.arange(0, n)).reshape([2] * (RANK - 2) + [16, 16])
    if TRANS:
        x = tl.trans(x)  # no dims: the last two swap
    acc = tl.full([2] * (RANK - 2) + [16, 16], 1.0, tl.float32)
    z = tl.dot(x, y, acc, input_precision="ieee")
    tl.store(z_ptr + tl.arange(0, n), z.reshape([n]))


@pytest.mark.parametrize("rank", [3, 4, 5])
@pytest.mark.parametrize("trans", [False, True])
def test_batched_dot_of_any_rank(rank, trans):
    shape = (2,) * (rank - 2) + (16, 16)
    x, y = random(shape, np.float32, -1, 1), random(shape, np.float32, -1, 1)
    z = poisoned(shape, np.float32)
    batched_dot[(1,)](x, y, z, RANK=rank, TRANS=trans)
    xs = np.swapaxes(x, -1, -2) if trans else x
    np.testing.assert_allclose(z, 1.0 + xs.astype(np.float64) @ y, rtol=1e-5, atol=1e-5)
