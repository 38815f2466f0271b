"""Tutorial 6: fused attention — softmax(Q K^T / sqrt(d)) V without the N x N matrix.

The plain formula materializes an N x N score matrix per head. This kernel never does: one
program owns BM query rows and walks the keys BN at a time, keeping a running row maximum
``m``, a running denominator ``l`` and an unnormalized output ``acc``. When a new key block
raises the maximum, what was summed so far is rescaled by exp(m_old - m_new), so the result
is exact, not an approximation ("online softmax"). Scores are scaled by log2(e) so the kernel
can use exp2. With ``causal`` set, a query attends only to keys at or before its own position.

Run it:  python docs/tutorials/06_fused_attention.py [--quick] [--device cpu|cuda] [--no-bench]
"""

from __future__ import annotations

import math

import _tutorial
import numpy as np

import tilec
import tilec.language as tl


# Sizes and the flag are not specialized (Triton would compile a variant for a value of 1 or a
# multiple of 16): one compiled kernel serves every sequence length here.
@tilec.jit(do_not_specialize=["n_ctx", "s_head", "causal"])
def attention_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    n_ctx,
    scale,
    s_head,
    s_row,  # strides of a (heads, n_ctx, HEAD_DIM) layout
    causal,
    HEAD_DIM: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
):
    head = tl.program_id(1)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    dims = tl.arange(0, HEAD_DIM)
    base = head * s_head
    q = tl.load(
        q_ptr + base + rows[:, None] * s_row + dims[None, :], mask=rows[:, None] < n_ctx, other=0.0
    )
    m = tl.full((BM,), -float("inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)  # noqa: E741 (the softmax denominator)
    acc = tl.zeros((BM, HEAD_DIM), tl.float32)
    qk_scale = scale * 1.4426950408889634  # log2(e): exp(x) == exp2(x * log2(e))
    # ``causal`` is a run-time flag (one compiled kernel serves both kinds); when set, keys
    # past this block's last query row cannot be seen, so the loop stops there.
    end = n_ctx
    if causal:
        end = tl.minimum((tl.program_id(0) + 1) * BM, n_ctx)
    for start in range(0, end, BN):
        keys = start + tl.arange(0, BN)
        k = tl.load(
            k_ptr + base + keys[None, :] * s_row + dims[:, None],
            mask=keys[None, :] < n_ctx,
            other=0.0,
        )  # a (HEAD_DIM, BN) tile: K transposed
        scores = tl.dot(q, k) * qk_scale
        visible = (keys[None, :] < n_ctx) & ((causal == 0) | (keys[None, :] <= rows[:, None]))
        scores = tl.where(visible, scores, -float("inf"))
        m_new = tl.maximum(m, tl.max(scores, axis=1))
        p = tl.math.exp2(scores - m_new[:, None])
        correction = tl.math.exp2(m - m_new)
        l = l * correction + tl.sum(p, axis=1)  # noqa: E741
        v = tl.load(
            v_ptr + base + keys[:, None] * s_row + dims[None, :],
            mask=keys[:, None] < n_ctx,
            other=0.0,
        )
        acc = tl.dot(p.to(v.dtype), v, acc * correction[:, None])
        m = m_new
    out = acc / l[:, None]
    tl.store(
        o_ptr + base + rows[:, None] * s_row + dims[None, :],
        out.to(o_ptr.dtype.element_ty),
        mask=rows[:, None] < n_ctx,
    )


def attention(q, k, v, o, s, causal: bool, kernel=attention_kernel):
    heads, n_ctx, head_dim = q.shape
    bm, bn = (64, 64) if s.device == "cuda" else (32, 32)
    grid = (tilec.cdiv(n_ctx, bm), heads)
    kernel[grid](
        q,
        k,
        v,
        o,
        n_ctx,
        1.0 / math.sqrt(head_dim),
        *s.strides(q)[:2],
        int(causal),
        HEAD_DIM=head_dim,
        BM=bm,
        BN=bn,
    )
    return o


def reference(q, k, v, causal: bool) -> np.ndarray:
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[1]
        scores = np.where(np.tril(np.ones((n, n), bool)), scores, -np.inf)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def main() -> None:
    s = _tutorial.start("fused-attention", __doc__.splitlines()[0])
    dtype = "float16" if s.device == "cuda" else "float32"
    heads, n_ctx, head_dim = (2, 77, 32) if s.quick else (8, 1000, 64)
    q, k, v = (s.rand((heads, n_ctx, head_dim), dtype) for _ in range(3))
    tol = 1e-2 if dtype == "float16" else 1e-5
    for causal in (False, True):
        o = attention(q, k, v, s.empty((heads, n_ctx, head_dim), dtype), s, causal)
        expected = reference(s.numpy(q), s.numpy(k), s.numpy(v), causal)
        s.check(f"attention (causal={causal})", o, expected, atol=tol, rtol=tol)

    heads, head_dim = (2, 32) if s.quick else (16, 64)

    def bench(n_ctx, provider):
        shape = (heads, n_ctx, head_dim)
        qs, ks, vs, os_ = s.rand(shape, dtype), s.rand(shape, dtype), s.rand(shape, dtype), None
        os_ = s.empty(shape, dtype)
        if provider == "tilec":
            ms = s.time_ms(lambda: attention(qs, ks, vs, os_, s, True))
        elif provider == "torch":
            f = s.torch.nn.functional.scaled_dot_product_attention
            ms = s.time_ms(lambda: f(qs, ks, vs, is_causal=True))
        elif provider == "numpy":
            ms = s.time_ms(lambda: reference(qs, ks, vs, True))
        else:
            twin = _tutorial.triton_twins(s.triton, attention_kernel).attention_kernel
            ms = s.time_ms(lambda: attention(qs, ks, vs, os_, s, True, kernel=twin))
        # causal attention does about half of the 4 * n^2 * d multiply-adds per head
        return _tutorial.tflops(2.0 * heads * n_ctx * n_ctx * head_dim, ms)

    lengths = [64, 128, 256] if s.quick else [256 * 2**i for i in range(6)]
    s.benchmark(
        bench,
        x_names=["n_ctx"],
        x_vals=lengths,
        x_log=True,
        xlabel="sequence length",
        ylabel="TFLOP/s (causal)",
    )


if __name__ == "__main__":
    main()
