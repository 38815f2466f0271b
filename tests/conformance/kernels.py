"""Equivalents of Triton's tutorials 01-07 and 09, written the way a Triton user writes them.

Only ``triton`` / ``tl`` names appear in the kernels (``import tilec as triton``), and the host
functions take caller-allocated arrays (numpy, torch CPU or CUDA tensors), so the same module
runs on the CPU now and on the GPU later (issue #6). The tests compare with float64 references.
"""

from __future__ import annotations

import math

import tilec as triton
import tilec.language as tl
from tilec.language.extra import libdevice


def stride(a, dim: int) -> int:
    """Element stride of a numpy array or a torch tensor along ``dim``."""
    if callable(getattr(a, "stride", None)):
        return a.stride(dim)
    return a.strides[dim] // a.itemsize


def numel(a) -> int:
    return math.prod(a.shape)


# --- 01 vector add -------------------------------------------------------------------------------


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    lhs = tl.load(x_ptr + offsets, mask=in_bounds)
    rhs = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, lhs + rhs, mask=in_bounds)


def add(x, y, out, block_size: int = 1024) -> None:
    n = numel(out)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731 (tutorial style)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=block_size)


# --- 02 fused softmax ----------------------------------------------------------------------------


@triton.jit
def softmax_kernel(
    out_ptr,
    in_ptr,
    in_row_stride,
    out_row_stride,
    n_rows,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    num_stages: tl.constexpr,
):
    # A persistent kernel: each program walks the rows pid, pid + num_programs, ...
    first_row = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row in tl.range(first_row, n_rows, row_step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        valid = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=valid, other=-float("inf"))
        shifted = x - tl.max(x, axis=0)
        numerator = tl.exp(shifted)
        result = numerator / tl.sum(numerator, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, result, mask=valid)


def softmax(x, out, num_programs: int = 4, num_stages: int = 2) -> None:
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    grid = (min(num_programs, n_rows), 1, 1)
    softmax_kernel[grid](
        out,
        x,
        stride(x, 0),
        stride(out, 0),
        n_rows,
        n_cols,
        BLOCK_SIZE=block,
        num_stages=num_stages,
        num_warps=4,
    )


# --- 03 matrix multiplication --------------------------------------------------------------------


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    # Grouped ordering: GROUP_SIZE_M consecutive row blocks share the column blocks they read.
    pid = tl.program_id(axis=0)
    blocks_m = tl.cdiv(M, BLOCK_SIZE_M)
    blocks_n = tl.cdiv(N, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * blocks_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = min(blocks_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + ((pid % per_group) % group_rows)
    pid_n = (pid % per_group) // group_rows
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_bn > 0)

    rows = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    cols = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    ks = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for step in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - step * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=ks[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    c = acc.to(c_ptr.dtype.element_ty)

    out_rows = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    out_cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * out_rows[:, None] + stride_cn * out_cols[None, :]
    tl.store(c_ptrs, c, mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def matmul(a, b, c, activation: str = "", block=(32, 32, 16), group_size_m: int = 4) -> None:
    M, K = a.shape
    _, N = b.shape
    bm, bn, bk = block
    grid = lambda meta: (  # noqa: E731 (tutorial style)
        triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),
    )
    matmul_kernel[grid](
        a,
        b,
        c,
        M,
        N,
        K,
        stride(a, 0),
        stride(a, 1),
        stride(b, 0),
        stride(b, 1),
        stride(c, 0),
        stride(c, 1),
        BLOCK_SIZE_M=bm,
        BLOCK_SIZE_N=bn,
        BLOCK_SIZE_K=bk,
        GROUP_SIZE_M=group_size_m,
        ACTIVATION=activation,
    )


# --- 04 low-memory dropout -----------------------------------------------------------------------


@triton.jit
def dropout_kernel(x_ptr, keep_ptr, out_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
    # The baseline: the keep mask is a tensor in memory.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    keep = tl.load(keep_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=in_bounds)


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # The keep mask is regenerated from (seed, offset) instead of being stored.
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    keep = tl.rand(seed, offsets) > p
    tl.store(out_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=in_bounds)


@triton.jit
def philox_kernel(
    ints_ptr, uniform_ptr, seed, first_offset, n_elements,
    BLOCK_SIZE: tl.constexpr, N_ROUNDS: tl.constexpr,
):  # fmt: skip
    # The raw stream: four words per offset, and the uniform floats rand() makes of them. An
    # int64 first_offset makes the offsets int64, whose high word Triton puts in the counter.
    idx = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = idx < n_elements
    offsets = first_offset + idx
    r0, r1, r2, r3 = tl.randint4x(seed, offsets, N_ROUNDS)
    tl.store(ints_ptr + 4 * idx, r0, mask=in_bounds)
    tl.store(ints_ptr + 4 * idx + 1, r1, mask=in_bounds)
    tl.store(ints_ptr + 4 * idx + 2, r2, mask=in_bounds)
    tl.store(ints_ptr + 4 * idx + 3, r3, mask=in_bounds)
    tl.store(uniform_ptr + idx, tl.rand(seed, offsets, N_ROUNDS), mask=in_bounds)


def dropout(x, keep, out, p: float, block_size: int = 256) -> None:
    n = numel(out)
    dropout_kernel[(triton.cdiv(n, block_size),)](x, keep, out, n, p, BLOCK_SIZE=block_size)


def seeded_dropout(x, out, p: float, seed: int, block_size: int = 256) -> None:
    n = numel(out)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)  # noqa: E731 (tutorial style)
    seeded_dropout_kernel[grid](x, out, n, p, seed, BLOCK_SIZE=block_size)


def philox(
    ints, uniform, seed: int, first_offset: int = 0, n_rounds: int = 10, block_size: int = 128
) -> None:
    """ints: (n, 4) uint32 words (stored into any integer buffer); uniform: (n,) float32."""
    n = numel(uniform)
    philox_kernel[(triton.cdiv(n, block_size),)](
        ints, uniform, seed, first_offset, n, BLOCK_SIZE=block_size, N_ROUNDS=n_rounds
    )


# --- 05 layer norm -------------------------------------------------------------------------------


@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # One program per row; the row is walked in BLOCK_SIZE chunks three times.
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    total = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        total += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(total, axis=0) / N
    squares = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        centered = tl.where(cols < N, x - mean, 0.0)
        squares += centered * centered
    rstd = 1 / tl.sqrt(tl.sum(squares, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def layer_norm_bwd_dx_kernel(
    DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
    GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
):  # fmt: skip
    # dX row by row; the row's dW/dB contribution is added into one of GROUP_SIZE_M partial
    # buffers, each guarded by a spin lock (Lock[g]) with a first-writer flag (Lock[G + g]).
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    group = row % GROUP_SIZE_M
    Lock += group
    Count = Lock + GROUP_SIZE_M
    DW = DW + group * N + cols
    DB = DB + group * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = tl.where(mask, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    tl.store(DX + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb_kernel(
    DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    # Sum the M partial rows column block by column block.
    cols = tl.program_id(0) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for start in range(0, M, BLOCK_SIZE_M):
        rows = start + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)


def layer_norm_forward(x, w, b, y, mean, rstd, eps: float, block_size: int = 64) -> None:
    M, N = x.shape
    layer_norm_fwd_kernel[(M,)](
        x, y, w, b, mean, rstd, stride(x, 0), N, eps, BLOCK_SIZE=block_size, num_warps=4,
        num_ctas=1,
    )  # fmt: skip


def layer_norm_backward(dy, x, w, mean, rstd, dx, dw, db, scratch, group_size_m: int) -> None:
    """``scratch`` is (locks: int32 zeros of 2 * group_size_m, partial dW, partial dB: each
    group_size_m x N, like ``w``), allocated by the caller so that it picks the array library."""
    locks, partial_dw, partial_db = scratch
    M, N = x.shape
    block_n = triton.next_power_of_2(N)
    layer_norm_bwd_dx_kernel[(M,)](
        dx, dy, partial_dw, partial_db, x, w, mean, rstd, locks, stride(x, 0), N,
        GROUP_SIZE_M=group_size_m, BLOCK_SIZE_N=block_n,
    )  # fmt: skip
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]),)  # noqa: E731 (tutorial style)
    layer_norm_bwd_dwdb_kernel[grid](
        partial_dw, partial_db, dw, db, group_size_m, N, BLOCK_SIZE_M=8, BLOCK_SIZE_N=32
    )


# --- 06 fused attention (forward) ----------------------------------------------------------------


@triton.jit
def attn_fwd_inner(
    acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
    N_CTX: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
    offs_m: tl.constexpr, offs_n: tl.constexpr, FP8_V: tl.constexpr,
):  # fmt: skip
    # STAGE 1: the key blocks left of the diagonal block; 2: the diagonal block (causal mask);
    # 3: every key block (non-causal). As in Triton's tutorial, N_CTX and the offsets are
    # annotated constexpr but receive run-time values, which then stay run-time values.
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        key_ok = (start_n + offs_n) < N_CTX
        k = tl.load(k_ptrs + start_n * stride_kn, mask=key_ok[None, :], other=0.0)
        qk = tl.dot(q, k)
        keep = key_ok[None, :]
        if STAGE == 2:
            keep = keep & (offs_m[:, None] >= (start_n + offs_n[None, :]))
        qk = qk * qk_scale + tl.where(keep, 0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptrs + start_n * stride_vn, mask=key_ok[:, None], other=0.0)
        acc = acc * alpha[:, None]
        if FP8_V:  # never taken here: it only has to compile away
            p = p.to(tl.float8e5)
        else:
            p = p.to(v.dtype)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd_kernel(
    Q, K, V, sm_scale, M, Out,
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_oz, stride_oh, stride_om, stride_ok,
    H, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
):  # fmt: skip
    # Flash attention: one program per (query block, batch * head); an online softmax in base 2
    # (the scale folds in log2(e)) over key/value blocks; M keeps the rows' log2-sum-exp.
    tl.static_assert(BLOCK_M % BLOCK_N == 0)  # the diagonal stage starts on a key block
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < N_CTX
    q_ptrs = Q + off_z * stride_qz + off_h * stride_qh
    q_ptrs += offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    k_ptrs = K + off_z * stride_kz + off_h * stride_kh
    k_ptrs += offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    v_ptrs = V + off_z * stride_vz + off_h * stride_vh
    v_ptrs += offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptrs, mask=row_ok[:, None], other=0.0)
    if STAGE & 1:
        acc, l_i, m_i = attn_fwd_inner(
            acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale, N_CTX,
            BLOCK_M, BLOCK_N, 4 - STAGE, offs_m, offs_n, V.dtype.element_ty == tl.float8e5,
        )  # fmt: skip
    if STAGE & 2:
        acc, l_i, m_i = attn_fwd_inner(
            acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale, N_CTX,
            BLOCK_M, BLOCK_N, 2, offs_m, offs_n, V.dtype.element_ty == tl.float8e5,
        )  # fmt: skip
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i, mask=row_ok)
    o_ptrs = Out + off_z * stride_oz + off_h * stride_oh
    o_ptrs += offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    tl.store(o_ptrs, acc.to(Out.type.element_ty), mask=row_ok[:, None])


def attention(q, k, v, out, m, causal: bool, sm_scale: float, block=(16, 16)) -> None:
    """q, k, v, out: (Z, H, N_CTX, HEAD_DIM); m: float32 (Z, H, N_CTX) log2-sum-exp per row."""
    Z, H, n_ctx, head_dim = q.shape
    block_m, block_n = block
    grid = lambda args: (triton.cdiv(n_ctx, args["BLOCK_M"]), Z * H, 1)  # noqa: E731
    strides = [stride(t, d) for t in (q, k, v, out) for d in range(4)]
    attn_fwd_kernel[grid](
        q, k, v, sm_scale, m, out, *strides, H, N_CTX=n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, STAGE=3 if causal else 1,
    )  # fmt: skip


@triton.jit
def attn_fwd_block_ptr_kernel(
    Q, K, V, sm_scale, Out,
    stride_qz, stride_qh, stride_qm, stride_qk,
    stride_kz, stride_kh, stride_kn, stride_kk,
    stride_vz, stride_vh, stride_vn, stride_vk,
    stride_oz, stride_oh, stride_om, stride_ok,
    H, N_CTX,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    # The earlier form of the tutorial: block pointers moved with tl.advance, one loop whose
    # causal mask applies to every block, and boundary checks for a ragged N_CTX.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_block = tl.make_block_ptr(
        base=Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh,
        shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
        offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    k_block = tl.make_block_ptr(
        base=K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh,
        shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
        offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1),
    )  # fmt: skip
    v_block = tl.make_block_ptr(
        base=V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh,
        shape=(N_CTX, HEAD_DIM), strides=(stride_vn, stride_vk),
        offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    o_block = tl.make_block_ptr(
        base=Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh,
        shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_ok),
        offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_block, boundary_check=(0,), padding_option="zero")
    hi = N_CTX
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    for start_n in range(0, hi, BLOCK_N):
        k = tl.load(k_block, boundary_check=(1,), padding_option="zero")
        qk = tl.dot(q, k) * qk_scale
        valid = (start_n + offs_n)[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= (start_n + offs_n)[None, :])
        qk = tl.where(valid, qk, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_block, boundary_check=(0,), padding_option="zero")
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_ij
        k_block = tl.advance(k_block, (0, BLOCK_N))
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    acc = acc / l_i[:, None]
    tl.store(o_block, acc.to(Out.type.element_ty), boundary_check=(0,))


def attention_block_ptr(q, k, v, out, causal: bool, sm_scale: float, block=(16, 16)) -> None:
    """As ``attention`` (no log-sum-exp output), through block pointers."""
    Z, H, n_ctx, head_dim = q.shape
    block_m, block_n = block
    grid = (triton.cdiv(n_ctx, block_m), Z * H, 1)
    strides = [stride(t, d) for t in (q, k, v, out) for d in range(4)]
    attn_fwd_block_ptr_kernel[grid](
        q, k, v, sm_scale, out, *strides, H, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
    )  # fmt: skip


# --- 07 extern functions (libdevice) -------------------------------------------------------------


@triton.jit
def asin_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    tl.store(y_ptr + offsets, libdevice.asin(x), mask=in_bounds)


def asin(x, out, block_size: int = 256) -> None:
    n = numel(out)
    asin_kernel[(triton.cdiv(n, block_size),)](x, out, n, BLOCK_SIZE=block_size)


# --- 09 persistent matmul ------------------------------------------------------------------------


@triton.jit
def tile_coordinates(tile, tiles_per_group, blocks_m, GROUP_SIZE_M: tl.constexpr):
    first_m = (tile // tiles_per_group) * GROUP_SIZE_M
    rows_in_group = min(blocks_m - first_m, GROUP_SIZE_M)
    return first_m + (tile % rows_in_group), (tile % tiles_per_group) // rows_in_group


@triton.jit
def persistent_matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
):  # fmt: skip
    # A fixed number of programs stride over the output tiles in grouped order; out-of-range
    # rows and columns are clamped to 0 for the loads (no load masks) and masked on the store.
    blocks_m = tl.cdiv(M, BLOCK_SIZE_M)
    blocks_n = tl.cdiv(N, BLOCK_SIZE_N)
    tiles_per_group = GROUP_SIZE_M * blocks_n
    ks = tl.arange(0, BLOCK_SIZE_K)
    for tile in tl.range(tl.program_id(0), blocks_m * blocks_n, NUM_SMS, flatten=True):
        pid_m, pid_n = tile_coordinates(tile, tiles_per_group, blocks_m, GROUP_SIZE_M)
        # The hints hold for the block's own offsets; the clamped copies only feed the loads.
        rows = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        rows = tl.max_contiguous(tl.multiple_of(rows, BLOCK_SIZE_M), BLOCK_SIZE_M)
        cols = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        cols = tl.max_contiguous(tl.multiple_of(cols, BLOCK_SIZE_N), BLOCK_SIZE_N)
        safe_rows = tl.where(rows < M, rows, 0)
        safe_cols = tl.where(cols < N, cols, 0)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for step in range(tl.cdiv(K, BLOCK_SIZE_K)):
            k = step * BLOCK_SIZE_K + ks
            a = tl.load(
                a_ptr + safe_rows[:, None] * stride_am + k[None, :] * stride_ak,
                mask=k[None, :] < K, other=0.0,
            )  # fmt: skip
            b = tl.load(
                b_ptr + k[:, None] * stride_bk + safe_cols[None, :] * stride_bn,
                mask=k[:, None] < K, other=0.0,
            )  # fmt: skip
            acc = tl.dot(a, b, acc)
        c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        c_mask = (rows[:, None] < M) & (cols[None, :] < N)
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


def persistent_matmul(a, b, c, num_sms: int = 3, block=(16, 16, 16), group_size_m: int = 2):
    M, K = a.shape
    _, N = b.shape
    bm, bn, bk = block
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    persistent_matmul_kernel[(min(num_sms, tiles),)](
        a, b, c, M, N, K, stride(a, 0), stride(a, 1), stride(b, 0), stride(b, 1),
        stride(c, 0), stride(c, 1), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
        GROUP_SIZE_M=group_size_m, NUM_SMS=num_sms,
    )  # fmt: skip
