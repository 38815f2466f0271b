"""Loops that accumulate one dot (the accumulator kept in registers across iterations, the loop
run once per register block): other loop results, empty loops, a loaded initial accumulator,
pointers advanced inside the body, and loops that must not be lowered that way."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def _accumulate(
    a_ptr, b_ptr, c_ptr, n_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, LOAD_C: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    if LOAD_C:
        acc = tl.load(c_ptrs, mask=c_mask, other=0.0)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    steps = 0
    for k in range(0, tl.cdiv(K, BK)):
        # pointers from loop-invariant bases plus a scalar offset, not carried
        a = tl.load(
            a_ptr + rm[:, None] * K + rk[None, :] + k * BK,
            mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK),
            other=0.0,
        )
        b = tl.load(
            b_ptr + rk[:, None] * N + rn[None, :] + k * BK * N,
            mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
        steps += 1
    tl.store(c_ptrs, acc, mask=c_mask)
    tl.atomic_add(n_ptr, steps)  # a scalar loop result used after the loop


def _run(m: int, n: int, k: int, block: tuple[int, int, int], load_c: bool) -> None:
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c0 = rng.standard_normal((m, n), dtype=np.float32)
    c = c0.copy() if load_c else np.full((m, n), np.nan, np.float32)
    count = np.zeros(1, np.int32)
    bm, bn, bk = block
    grid = (tilec.cdiv(m, bm), tilec.cdiv(n, bn))
    _accumulate[grid](a, b, c, count, m, n, k, BM=bm, BN=bn, BK=bk, LOAD_C=load_c)
    want = a.astype(np.float64) @ b + (c0 if load_c else 0.0)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    assert count[0] == grid[0] * grid[1] * tilec.cdiv(k, bk)


@pytest.mark.parametrize(
    ("m", "n", "k", "block"),
    [
        (64, 128, 96, (32, 64, 32)),  # in bounds everywhere, two column blocks per register row
        (50, 70, 45, (32, 32, 16)),  # ragged: edge steps pack the block's rows of A and all of B
        (8, 16, 0, (8, 16, 8)),  # no iterations: the accumulator keeps its initial value
    ],
)
@pytest.mark.parametrize("load_c", [False, True])
def test_accumulating_loop(m, n, k, block, load_c) -> None:
    _run(m, n, k, block, load_c)


@tilec.jit
def _not_only_a_dot(
    a_ptr, b_ptr, c_ptr, s_ptr, K, M: tl.constexpr, N: tl.constexpr, BK: tl.constexpr,
    STORE_INSIDE: tl.constexpr,
):  # fmt: skip
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, BK)
    acc = tl.zeros((M, N), dtype=tl.float32)
    total = tl.zeros((M, N), dtype=tl.float32)
    for k in range(0, K // BK):
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :] + k * BK)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :] + k * BK * N)
        acc = tl.dot(a, b, acc)
        if STORE_INSIDE:
            tl.store(s_ptr + k, tl.sum(tl.sum(acc, axis=1), axis=0))
        else:
            total += acc  # the accumulator is read by more than the dot
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], total if not STORE_INSIDE else acc)


@pytest.mark.parametrize("store_inside", [False, True])
def test_loops_that_keep_the_plain_lowering(store_inside: bool) -> None:
    m, n, bk, k = 16, 32, 8, 24
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float32)
    sums = np.full(k // bk, np.nan, np.float32)
    _not_only_a_dot[(1,)](a, b, c, sums, k, M=m, N=n, BK=bk, STORE_INSIDE=store_inside)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    partial = [a64[:, : bk * (s + 1)] @ b64[: bk * (s + 1)] for s in range(k // bk)]
    want = partial[-1] if store_inside else sum(partial)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    if store_inside:
        np.testing.assert_allclose(sums, [p.sum() for p in partial], rtol=1e-4, atol=1e-3)


@tilec.jit
def _shared_expensive_mask(a_ptr, b_ptr, c_ptr, K, M: tl.constexpr, N: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, 16)
    acc = tl.zeros((M, N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, 16)):
        # a long integer expression read by both loads: worth a buffer of its own, which the
        # trial lowering of the loop body must not allocate
        kk = ((((rk + k * 16) * 3 + 1) * 5 - 5) // 15 + k * 16 - k * 16) * 1
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=kk[None, :] < K, other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def test_shared_expensive_offsets() -> None:
    m, n, k = 16, 16, 40
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float32)
    _shared_expensive_mask[(1,)](a, b, c, k, M=m, N=n)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


@tilec.jit
def _plus_equals(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
    FORM: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        if FORM == 0:
            acc += tl.dot(a, b)
        elif FORM == 1:
            acc = tl.dot(a, b) + acc
        else:  # the dot has an accumulator of its own: added, not fused
            acc = acc + tl.dot(a, b, tl.full((BM, BN), 0.5, tl.float32))
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@pytest.mark.parametrize("form", [0, 1, 2])
@pytest.mark.parametrize(("m", "n", "k"), [(64, 64, 64), (50, 40, 37)])
def test_accumulating_by_addition(form: int, m: int, n: int, k: int) -> None:
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    c = np.full((m, n), np.nan, np.float32)
    grid = (tilec.cdiv(m, 32), tilec.cdiv(n, 32))
    _plus_equals[grid](a, b, c, m, n, k, BM=32, BN=32, BK=16, FORM=form)
    want = a.astype(np.float64) @ b + (0.5 * tilec.cdiv(k, 16) if form == 2 else 0.0)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(("m", "n", "k"), [(64, 64, 64), (50, 40, 37)])
def test_half_precision_operands(dtype: str, m: int, n: int, k: int) -> None:
    # fp16 / bf16 operands read in place and widened as they are loaded, fp32 accumulation
    torch = pytest.importorskip("torch")
    gen = torch.Generator().manual_seed(int(np.random.default_rng().integers(1 << 30)))
    a = torch.randn((m, k), generator=gen).to(getattr(torch, dtype))
    b = torch.randn((k, n), generator=gen).to(getattr(torch, dtype))
    c = torch.full((m, n), float("nan"), dtype=torch.float32)
    grid = (tilec.cdiv(m, 32), tilec.cdiv(n, 32))
    _plus_equals[grid](a, b, c, m, n, k, BM=32, BN=32, BK=16, FORM=0)
    want = a.double().numpy() @ b.double().numpy()
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-5, atol=1e-4)
