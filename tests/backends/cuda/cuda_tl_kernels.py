"""Tutorial-style kernels in the tile language (through the real frontend), for the CUDA
backend's offline PTX tests and its GPU tests."""

from __future__ import annotations

import tilec
import tilec.language as tl


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(
        out_ptr + offs,
        tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
        mask=mask,
    )


@tilec.jit
def softmax(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@tilec.jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@tilec.jit
def layer_norm_bwd_dx(
    dx_ptr,
    dy_ptr,
    dw_ptr,
    db_ptr,
    x_ptr,
    w_ptr,
    mean_ptr,
    rstd_ptr,
    lock_ptr,
    stride,
    N,
    GROUP: tl.constexpr,
    BLOCK: tl.constexpr,
):
    """dx per row; partial dw/db summed per row group under a spin lock (tutorial 05)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    group = row % GROUP
    lock = lock_ptr + group
    count = lock_ptr + GROUP + group
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    xhat = tl.where(mask, (x - tl.load(mean_ptr + row)) * tl.load(rstd_ptr + row), 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(
        dx_ptr + row * stride + cols, (wdy - (xhat * c1 + c2)) * tl.load(rstd_ptr + row), mask=mask
    )
    dw = dy * xhat
    db = dy
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(count) == 0:
        tl.atomic_xchg(count, 1)
    else:
        dw += tl.load(dw_ptr + group * N + cols, mask=mask)
        db += tl.load(db_ptr + group * N + cols, mask=mask)
    tl.store(dw_ptr + group * N + cols, dw, mask=mask)
    tl.store(db_ptr + group * N + cols, db, mask=mask)
    tl.atomic_xchg(lock, 0)


@tilec.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    s_am,
    s_ak,
    s_bk,
    s_bn,
    s_cm,
    s_cn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP: tl.constexpr,
):
    pid = tl.program_id(0)
    n_m, n_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    width = GROUP * n_n
    first = (pid // width) * GROUP
    rows_in_group = min(n_m - first, GROUP)
    pm = first + (pid % width) % rows_in_group
    pn = (pid % width) // rows_in_group
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
    b = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(
            tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0),
            tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0),
            acc,
        )
        a += BK * s_ak
        b += BK * s_bk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + cm[:, None] * s_cm + cn[None, :] * s_cn,
        acc.to(c_ptr.dtype.element_ty),
        mask=(cm[:, None] < M) & (cn[None, :] < N),
    )


@tilec.jit
def attention(
    q_ptr, k_ptr, v_ptr, o_ptr, scale, n_ctx, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr
):
    base = tl.program_id(1) * n_ctx * D
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + base + rows[:, None] * D + d[None, :])
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, n_ctx, BN):
        keys = start + tl.arange(0, BN)
        k = tl.load(k_ptr + base + keys[:, None] * D + d[None, :])
        s = tl.dot(q, tl.trans(k)) * scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + keys[:, None] * D + d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    tl.store(
        o_ptr + base + rows[:, None] * D + d[None, :],
        (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
    )


@tilec.jit
def argmax_cumsum(x_ptr, idx_ptr, cs_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(cs_ptr + row * N + tl.arange(0, N), tl.cumsum(x, axis=0))


@tilec.jit
def debug_print(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_print("x = ", x)
    tl.device_assert(x >= 0, "negative input")


@tilec.jit
def copy_rows(src, dst, stride, SCALE: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """Rows ``stride * SCALE`` elements apart, each read as one contiguous run of BN."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(src + (rm * SCALE * stride)[:, None] + rn[None, :])
    tl.store(dst + rm[:, None] * BN + rn[None, :], x)
