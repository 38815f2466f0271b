"""Kernels whose K-loop ``tl.dot`` operands are pipelined straight into the dot's shared layout
(pipeline_operands.py): strided operands, two dots in one body, a persistent loop around the
K loop and pipelined loops in pipelined loops. Shared by the offline and the GPU tests."""

from __future__ import annotations

import tilec
import tilec.language as tl


@tilec.jit
def strided_k_loop(
    a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + (rm % M)[:, None] * s_am + rk[None, :] * s_ak
    b = b_ptr + rk[:, None] * s_bk + (rn % N)[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=c_ptr.dtype.element_ty)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0)
        acc = tl.dot(x, y, acc)
        a += BK * s_ak
        b += BK * s_bk
    c = c_ptr + rm[:, None] * N + rn[None, :]
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def two_dots(
    a_ptr, b_ptr, d_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):  # fmt: skip
    """c = A @ B + A @ D with both products in one K loop (B, D: [K, BN])."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(x, y, acc)
        x2 = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        z = tl.load(d_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc2 = tl.dot(x2, z, acc2)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc + acc2)


@tilec.jit
def persistent(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, INNER: tl.constexpr,
):  # fmt: skip
    """Each program walks tiles; every tile runs a pipelined K loop (an outer loop whose body
    also multiplies one leading K block, pipelined itself when INNER is 0)."""
    tiles_n = N // BN
    rk = tl.arange(0, BK)
    for t in tl.range(tl.program_id(0), (M // BM) * tiles_n, tl.num_programs(0), num_stages=2):
        rm = (t // tiles_n) * BM + tl.arange(0, BM)
        rn = (t % tiles_n) * BN + tl.arange(0, BN)
        x0 = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        y0 = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        acc = tl.dot(x0, y0)
        for k in tl.range(BK, K, BK, num_stages=3 + INNER):
            x = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            y = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(x, y, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))
