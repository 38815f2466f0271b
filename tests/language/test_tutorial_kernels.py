"""Kernels in the style of Triton's tutorials (fused softmax, dropout, layer norm, attention),
written for these tests and compared with numpy in float64."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        z = x - tl.max(x, axis=0)
        num = tl.exp(z)
        tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def test_fused_softmax():
    x = random((37, 100), np.float32)
    out = poisoned((37, 100), np.float32)
    softmax_rows[(8,)](out, x, 100, 100, 37, 100, BLOCK=128)
    e = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


@jit
def dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_seeded_dropout_is_reproducible():
    x = random(1000, np.float32, 1, 2)
    a, b = poisoned(1000, np.float32), poisoned(1000, np.float32)
    dropout[(8,)](x, a, 1000, 0.5, 123, BLOCK=128)
    dropout[(8,)](x, b, 1000, 0.5, 123, BLOCK=128)
    np.testing.assert_array_equal(a, b)
    kept = a != 0
    assert 0.4 < kept.mean() < 0.6
    np.testing.assert_allclose(a[kept], x[kept] * 2, rtol=1e-6)


@jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    diff = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(diff * diff, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


def test_layer_norm_forward():
    x = random((20, 70), np.float32)
    w, b = random(70, np.float32), random(70, np.float32)
    y = poisoned((20, 70), np.float32)
    layer_norm[(20,)](x, y, w, b, 70, 70, 1e-5, BLOCK=128)
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


@tilec.jit
def _attn_inner(acc, m_i, l_i, q, k_ptrs, v_ptrs, n_ctx, stride, scale, BN: tl.constexpr):
    for start in range(0, n_ctx, BN):
        k = tl.load(k_ptrs + start * stride)
        v = tl.load(v_ptrs + start * stride)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee") * scale  # fp32-exact on GPUs too
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    return acc, m_i, l_i


@jit
def attention(
    q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, scale, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), tl.float32)
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc, m_i, l_i = _attn_inner(
        acc,
        m_i,
        l_i,
        q,
        k_ptr + rn[:, None] * D + rd[None, :],
        v_ptr + rn[:, None] * D + rd[None, :],
        n_ctx,
        D,
        scale,
        BN,
    )
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc / l_i[:, None])


def test_attention_forward():
    n, d = 64, 16
    q, k, v = (random((n, d), np.float32, -1, 1) for _ in range(3))
    o = poisoned((n, d), np.float32)
    attention[(n // 16,)](q, k, v, o, n, 0.25, BM=16, BN=16, D=d)
    s = q.astype(np.float64) @ k.T * 0.25
    p = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(o, (p / p.sum(1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5)


@tilec.jit
def _leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@jit
def grouped_matmul(
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
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = _leaky_relu(acc)
    c = acc.to(tl.float16)
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def test_grouped_matmul_with_activation():
    m, n, k = 72, 40, 56
    a, b = random((m, k), np.float16, -1, 1), random((k, n), np.float16, -1, 1)
    c = poisoned((m, n), np.float16)
    grid = (((m + 15) // 16) * ((n + 15) // 16),)
    grouped_matmul[grid](
        a, b, c, m, n, k, k, 1, n, 1, n, 1, BM=16, BN=16, BK=16, GROUP_M=2, ACTIVATION="leaky_relu"
    )
    ref = a.astype(np.float64) @ b
    ref = np.where(ref >= 0, ref, 0.01 * ref)
    np.testing.assert_allclose(c, ref, rtol=2e-2, atol=2e-2)
