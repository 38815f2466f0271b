"""The GPU benchmark's kernels, written once in Triton's language.

bench/gpu.py loads this file twice: as Triton kernels, and with ``USE_TILEC`` set in the module
namespace as tilec kernels (``import tilec as triton``), so both compilers see the same source.
Shapes follow Triton's tutorials 01 (vector add), 02 (fused softmax), 03 (matmul), 05 (layer norm
forward) and 06 (attention forward, non-causal).
"""

if globals().get("USE_TILEC"):
    import tilec as triton
    import tilec.language as tl
else:
    import triton
    import triton.language as tl


@triton.jit
def vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx < n
    tl.store(
        c_ptr + idx,
        tl.load(a_ptr + idx, mask=inside) + tl.load(b_ptr + idx, mask=inside),
        mask=inside,
    )


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    v = tl.load(in_ptr + r * in_stride + cols, mask=ok, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(out_ptr + r * out_stride + cols, e / tl.sum(e, axis=0), mask=ok)


@triton.jit
def layer_norm_fwd(
    x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK: tl.constexpr
):
    r = tl.program_id(0)
    x_row = x_ptr + r * stride
    y_row = y_ptr + r * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        c = start + tl.arange(0, BLOCK)
        acc += tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32)
    mu = tl.sum(acc, axis=0) / N
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        c = start + tl.arange(0, BLOCK)
        d = tl.where(c < N, tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32) - mu, 0.0)
        sq += d * d
    inv = 1 / tl.sqrt(tl.sum(sq, axis=0) / N + eps)
    tl.store(mean_ptr + r, mu)
    tl.store(rstd_ptr + r, inv)
    for start in range(0, N, BLOCK):
        c = start + tl.arange(0, BLOCK)
        ok = c < N
        w = tl.load(w_ptr + c, mask=ok)
        b = tl.load(b_ptr + c, mask=ok)
        v = tl.load(x_row + c, mask=ok, other=0.0).to(tl.float32)
        tl.store(y_row + c, ((v - mu) * inv * w + b).to(y_ptr.dtype.element_ty), mask=ok)


@triton.jit
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
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    group_rows = min(tiles_m - first_m, GROUP)
    pm = first_m + ((pid % per_group) % group_rows)
    pn = (pid % per_group) // group_rows
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
    b_tile = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_tile, mask=rk[None, :] < K - kk * BK, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < K - kk * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * s_ak
        b_tile += BK * s_bk
    cm = pm * BM + tl.arange(0, BM)
    cn = pn * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + cm[:, None] * s_cm + cn[None, :] * s_cn,
        acc.to(tl.float16),
        mask=(cm[:, None] < M) & (cn[None, :] < N),
    )


@triton.jit
def attention_fwd(
    q_ptr, k_ptr, v_ptr, o_ptr, scale, n_ctx, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr
):
    base = tl.program_id(1) * n_ctx * D
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    dims = tl.arange(0, D)
    q = tl.load(q_ptr + base + rows[:, None] * D + dims[None, :])
    m_run = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_run = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    qk_scale = scale * 1.44269504
    for start in range(0, n_ctx, BN):
        keys = start + tl.arange(0, BN)
        kt = tl.load(k_ptr + base + keys[None, :] * D + dims[:, None])
        s = tl.dot(q, kt)
        m_new = tl.maximum(m_run, tl.max(s, 1) * qk_scale)
        p = tl.math.exp2(s * qk_scale - m_new[:, None])
        alpha = tl.math.exp2(m_run - m_new)
        l_run = l_run * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + keys[:, None] * D + dims[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_run = m_new
    out = acc / l_run[:, None]
    tl.store(o_ptr + base + rows[:, None] * D + dims[None, :], out.to(tl.float16))
