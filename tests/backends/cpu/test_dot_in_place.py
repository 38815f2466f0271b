"""tl.dot reading its loaded operands in place (no packed copy) when their masks hold on the whole
tile, and through packed copies where they do not: ragged edges, odd and transposed strides,
unmasked loads, and a store between the load and the dot."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def _matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N)
    )


def _run(a: np.ndarray, b: np.ndarray, block: tuple[int, int, int]) -> np.ndarray:
    (m, k), n = a.shape, b.shape[1]
    bm, bn, bk = block
    c = np.full((m, n), np.nan, np.float32)
    ea, eb = a.itemsize, b.itemsize
    grid = (tilec.cdiv(m, bm), tilec.cdiv(n, bn))
    _matmul[grid](
        a, b, c, m, n, k, a.strides[0] // ea, a.strides[1] // ea, b.strides[0] // eb,
        b.strides[1] // eb, n, BM=bm, BN=bn, BK=bk,
    )  # fmt: skip
    return c


def _check(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    ("m", "n", "k", "block"),
    [
        (128, 128, 64, (64, 64, 32)),  # every tile in bounds: both operands read in place
        (70, 50, 45, (32, 32, 16)),  # ragged M, N and K: edge tiles take the packed branch
        (64, 96, 33, (16, 32, 32)),  # only the last K step is partial
        (3, 16, 5, (4, 16, 8)),  # one program, nothing in bounds
    ],
)
def test_ragged_edges(m: int, n: int, k: int, block: tuple[int, int, int]) -> None:
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    _check(a, b, _run(a, b, block))


def test_odd_row_strides() -> None:
    # rows padded to odd lengths: the row starts are not aligned to anything
    rng = np.random.default_rng()
    a = rng.standard_normal((96, 67), dtype=np.float32)[:, :61]
    b = rng.standard_normal((61, 83), dtype=np.float32)[:, :64]
    _check(a, b, _run(a, b, (32, 32, 16)))


def test_transposed_operands() -> None:
    # A transposed (unit stride down its columns) and B transposed (B's rows are not
    # contiguous, so it is packed while A is still read in place)
    rng = np.random.default_rng()
    a = rng.standard_normal((48, 64), dtype=np.float32).T
    b = rng.standard_normal((64, 48), dtype=np.float32).T
    _check(a, b, _run(a, b, (16, 32, 16)))
    _check(a, b, _run(np.ascontiguousarray(a), b, (16, 32, 16)))
    _check(a, b, _run(a, np.ascontiguousarray(b), (16, 32, 16)))


@tilec.jit
def _unmasked_dot(
    a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
    SAM: tl.constexpr, SAK: tl.constexpr,
):  # fmt: skip
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * SAM + rk[None, :] * SAK)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@pytest.mark.parametrize("a_transposed", [False, True])
def test_unmasked_loads(a_transposed: bool) -> None:
    # known strides: A is read in place with a step of 1 or (transposed) of M elements
    rng = np.random.default_rng()
    a = rng.standard_normal((8, 16) if a_transposed else (16, 8), dtype=np.float32)
    a = a.T if a_transposed else a
    b = rng.standard_normal((8, 32), dtype=np.float32)
    c = np.full((16, 32), np.nan, np.float32)
    sam, sak = (s // 4 for s in a.strides)
    _unmasked_dot[(1,)](a, b, c, M=16, N=32, K=8, SAM=sam, SAK=sak)
    _check(a, b, c)


@tilec.jit
def _dot_after_store(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    a = tl.load(a_ptrs, mask=rm[:, None] < M)
    tl.store(a_ptrs, a * 0.0 - 1.0)  # the dot must still see what was loaded before this
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


def test_store_between_load_and_dot() -> None:
    rng = np.random.default_rng()
    a = rng.standard_normal((16, 16), dtype=np.float32)
    b = rng.standard_normal((16, 16), dtype=np.float32)
    a0 = a.copy()
    c = np.full((16, 16), np.nan, np.float32)
    _dot_after_store[(1,)](a, b, c, M=16, N=16, K=16)
    _check(a0, b, c)
    assert (a == -1.0).all()
