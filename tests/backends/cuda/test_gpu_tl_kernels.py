"""Tutorial-style tile-language kernels launched with ``kernel[grid]`` on torch CUDA tensors and
compared with numpy in float64 (marked gpu)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cuda_tl_kernels as K
import numpy as np
import pytest
from cuda_harness import gpu_available

from tilec import config

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


def _dev(a: np.ndarray):  # type: ignore[no-untyped-def]
    import torch

    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def _nan(shape: tuple[int, ...], dtype: type = np.float32):  # type: ignore[no-untyped-def]
    return _dev(np.full(shape, np.nan, dtype))


def _host(t) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    torch.cuda.synchronize()
    return t.cpu().numpy().astype(np.float64)


def test_vector_add() -> None:
    rng = np.random.default_rng()
    n = 10_007
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = _nan((n,))
    K.add[(-(-n // 1024),)](_dev(x), _dev(y), out, n, BLOCK=1024)
    np.testing.assert_allclose(_host(out), x.astype(np.float64) + y, rtol=1e-6)


def test_softmax_persistent_rows() -> None:
    x = np.random.default_rng().standard_normal((37, 781)).astype(np.float32)
    out = _nan(x.shape)
    K.softmax[(8,)](out, _dev(x), 781, 37, 781, BLOCK=1024)
    e = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(_host(out), e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-7)


def test_dropout_matches_the_cpu_backend_bit_for_bit() -> None:
    pytest.importorskip("tilec.backends.cpu")
    n = 5000
    x = np.random.default_rng().uniform(1, 2, n).astype(np.float32)
    out = _nan((n,))
    K.dropout[(-(-n // 1024),)](_dev(x), out, n, 0.3, 1234, BLOCK=1024)
    cpu = np.full(n, np.nan, np.float32)
    K.dropout[(-(-n // 1024),)](x, cpu, n, 0.3, 1234, BLOCK=1024)
    np.testing.assert_array_equal(_host(out).astype(np.float32), cpu)
    assert 0.6 < (cpu != 0).mean() < 0.8


def test_layer_norm_backward_with_spin_lock() -> None:
    rng = np.random.default_rng()
    m, n, group = 64, 200, 8
    x, dy = (
        rng.standard_normal((m, n)).astype(np.float32),
        rng.standard_normal((m, n)).astype(np.float32),
    )
    w = rng.uniform(0.5, 1.5, n).astype(np.float32)
    x64 = x.astype(np.float64)
    mean, rstd = x64.mean(1), 1 / np.sqrt(x64.var(1) + 1e-5)
    dx, dw, db = (
        _nan((m, n)),
        _dev(np.zeros((group, n), np.float32)),
        _dev(np.zeros((group, n), np.float32)),
    )
    lock = _dev(np.zeros(2 * group, np.int32))
    K.layer_norm_bwd_dx[(m,)](
        dx,
        _dev(dy),
        dw,
        db,
        _dev(x),
        _dev(w),
        _dev(mean.astype(np.float32)),
        _dev(rstd.astype(np.float32)),
        lock,
        n,
        n,
        GROUP=group,
        BLOCK=256,
    )
    xhat = (x64 - mean[:, None]) * rstd[:, None]
    wdy = w * dy.astype(np.float64)
    c1, c2 = (xhat * wdy).mean(1, keepdims=True), wdy.mean(1, keepdims=True)
    np.testing.assert_allclose(
        _host(dx), (wdy - (xhat * c1 + c2)) * rstd[:, None], rtol=1e-4, atol=1e-4
    )
    rows = np.arange(m) % group
    want_dw = np.stack([(dy * xhat)[rows == g].sum(0) for g in range(group)])
    want_db = np.stack([dy.astype(np.float64)[rows == g].sum(0) for g in range(group)])
    np.testing.assert_allclose(_host(dw), want_dw, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(_host(db), want_db, rtol=1e-4, atol=1e-4)


def test_grouped_matmul_fp16() -> None:
    rng = np.random.default_rng()
    m, n, k = 200, 136, 72
    a, b = (
        rng.standard_normal((m, k)).astype(np.float16),
        rng.standard_normal((k, n)).astype(np.float16),
    )
    c = _nan((m, n), np.float16)
    grid = (-(-m // 64) * -(-n // 64),)
    K.matmul[grid](_dev(a), _dev(b), c, m, n, k, k, 1, n, 1, n, 1, BM=64, BN=64, BK=32, GROUP=8)
    np.testing.assert_allclose(_host(c), a.astype(np.float64) @ b, rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize(
    "bm,bn,d,warps,wgmma",
    [(64, 32, 64, 4, True), (128, 64, 64, 8, True), (128, 64, 128, 4, True),
     (64, 64, 32, 4, True), (64, 32, 64, 4, False), (128, 64, 64, 8, False)],
)  # fmt: skip
def test_attention_forward(bm: int, bn: int, d: int, warps: int, wgmma: bool) -> None:
    # on sm_90a: wgmma with Q and P as register operands and K copied transposed into its
    # slots, one and two warpgroups; mma.sync (DISABLE_MMA_V3) reads the same K slots
    with config.override(disable_mma_v3=not wgmma):
        _attention(bm, bn, d, warps)


def _attention(bm: int, bn: int, d: int, warps: int) -> None:
    rng = np.random.default_rng()
    heads, ctx = 3, 256
    q, k, v = ((rng.standard_normal((heads, ctx, d)) * 0.5).astype(np.float16) for _ in range(3))
    o = _nan((heads, ctx, d), np.float16)
    K.attention[(ctx // bm, heads)](
        _dev(q), _dev(k), _dev(v), o, 0.125, ctx, BM=bm, BN=bn, D=d, num_warps=warps
    )
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * 0.125
    p = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(_host(o), (p / p.sum(-1, keepdims=True)) @ v, rtol=2e-2, atol=2e-2)


def test_argmax_and_cumsum() -> None:
    x = np.random.default_rng().standard_normal((5, 128)).astype(np.float32)
    idx, cs = _dev(np.full(5, -1, np.int32)), _nan((5, 128))
    K.argmax_cumsum[(5,)](_dev(x), idx, cs, N=128)
    np.testing.assert_array_equal(_host(idx), x.argmax(1))
    np.testing.assert_allclose(_host(cs), np.cumsum(x.astype(np.float64), 1), rtol=1e-5, atol=1e-5)


def test_device_print_and_assert_in_a_subprocess() -> None:
    here = Path(__file__).resolve().parent
    code = (
        f"import sys, numpy as np, torch; sys.path.insert(0, {str(here)!r}); import cuda_tl_kernels as K\n"
        "x = torch.arange(4, dtype=torch.float32, device='cuda') - 1\n"
        "try:\n    K.debug_print[(1,)](x, N=4); torch.cuda.synchronize(); print('NO ERROR')\n"
        "except Exception as e:\n    print('ERROR', type(e).__name__, e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert "x =: " in out and "idx (" in out, out[-2000:]  # Triton's prefix: "x =: "
    assert "NO ERROR" not in out, out[-2000:]
