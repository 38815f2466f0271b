"""Tile-language kernels that exercise ``tl.dot`` on tensor cores: a K-loop matmul with masked
edges (optionally reading A or B transposed: a tile loaded K-outer, then ``tl.trans``; optionally
accumulating into C) and a batched 3-D dot. Shared by the offline PTX tests and the GPU tests."""

from __future__ import annotations

import tilec
import tilec.language as tl


@tilec.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K,
    s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
    ACC: tl.constexpr, PRECISION: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr,
    INIT: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    c = c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn
    if INIT:  # C += A @ B: the accumulator starts from C's values
        acc = tl.load(c, mask=(rm[:, None] < M) & (rn[None, :] < N), other=0).to(ACC)
    else:
        acc = tl.zeros((BM, BN), dtype=ACC)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        if TRANS_A:  # an [BK, BM] tile, contiguous along M when s_am == 1
            at = a_ptr + rm[None, :] * s_am + kk[:, None] * s_ak
            a = tl.trans(tl.load(at, mask=(rm[None, :] < M) & (kk[:, None] < K), other=0))
        else:
            a_ptrs = a_ptr + rm[:, None] * s_am + kk[None, :] * s_ak
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        if TRANS_B:  # an [BN, BK] tile, contiguous along K when s_bk == 1
            bt = b_ptr + rn[:, None] * s_bn + kk[None, :] * s_bk
            b = tl.trans(tl.load(bt, mask=(rn[:, None] < N) & (kk[None, :] < K), other=0))
        else:
            b_ptrs = b_ptr + kk[:, None] * s_bk + rn[None, :] * s_bn
            b = tl.load(b_ptrs, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def bmm(
    a_ptr, b_ptr, c_ptr,
    B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
    PRECISION: tl.constexpr,
):  # fmt: skip
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rb * (M * K) + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rb * (M * N) + rm[None, :, None] * N + rn[None, None, :], c)


@tilec.jit
def chained(
    a_ptr, b_ptr, c_ptr, out_ptr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr, P: tl.constexpr
):
    """``(a @ b).to(a's type) @ c``: the second dot's A is the first's result in registers."""
    rm, rk, rn, rp = tl.arange(0, M), tl.arange(0, K), tl.arange(0, N), tl.arange(0, P)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rn[:, None] * P + rp[None, :])
    s = tl.dot(a, b)
    tl.store(out_ptr + rm[:, None] * P + rp[None, :], tl.dot(s.to(a.dtype), c))


@tilec.jit
def chained_bmm(
    a_ptr, b_ptr, c_ptr, out_ptr,
    B: tl.constexpr, M: tl.constexpr, K: tl.constexpr, N: tl.constexpr, P: tl.constexpr,
):  # fmt: skip
    rb = tl.arange(0, B)[:, None, None]
    rm, rk = tl.arange(0, M)[None, :, None], tl.arange(0, K)
    rn, rp = tl.arange(0, N), tl.arange(0, P)
    a = tl.load(a_ptr + rb * (M * K) + rm * K + rk[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + rk[None, :, None] * N + rn[None, None, :])
    c = tl.load(c_ptr + rb * (N * P) + rn[None, :, None] * P + rp[None, None, :])
    s = tl.dot(a, b)
    tl.store(out_ptr + rb * (M * P) + rm * P + rp[None, None, :], tl.dot(s.to(a.dtype), c))


@tilec.jit
def pipelined_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_bk, s_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr,
):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * s_am + rk[None, :]
    b = b_ptr + rk[:, None] * s_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        x = tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        a += BK
        b += BK * s_bk
    c = c_ptr + rm[:, None] * s_cm + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
