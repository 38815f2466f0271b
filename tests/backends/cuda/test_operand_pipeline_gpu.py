"""Dot operands pipelined by cp.async into the dot's shared layout (the default for a K loop's
``tl.dot`` loads, pipeline_operands.py) give numpy's float64 answers on a real GPU (marked gpu):
Triton's tutorial matmul at its benchmark tiles and stage counts, masked K tails, K-contiguous
B, int8 and tf32 operands, two dots in one body, a persistent loop around the K loop and
pipelined loops nested in pipelined loops. Outputs are NaN-poisoned, inputs fresh random."""

from __future__ import annotations

import cuda_tl_kernels as T
import numpy as np
import pytest
from cuda_harness import gpu_available
from operand_kernels import persistent, strided_k_loop, two_dots
from test_mma_gpu import _check, _host, _inputs, _poisoned

from tilec import config

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


def _tutorial(dtype: str, m: int, n: int, k: int, block, warps: int, stages: int) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng()
    a, a_h = _inputs(dtype, (m, k), rng)
    b, b_h = _inputs(dtype, (k, n), rng)
    c = _poisoned(dtype, (m, n))
    bm, bn, bk = block
    grid = (-(-m // bm) * -(-n // bn),)
    T.matmul[grid](
        a, b, c, m, n, k, k, 1, n, 1, n, 1,
        BM=bm, BN=bn, BK=bk, GROUP=8, num_warps=warps, num_stages=stages,
    )  # fmt: skip
    _check(_host(c), a_h @ b_h, np.abs(a_h) @ np.abs(b_h), 1e-4, dtype)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_tutorial_matmul_at_the_benchmark_tiles(dtype: str, stages: int) -> None:
    # 656 = 10 * 64 + 16: the last K block is a masked tail (zero-filled copies)
    _tutorial(dtype, 512, 768, 656, (128, 256, 64), 8, stages)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_tutorial_matmul_on_mma_sync_where_wgmma_exists(dtype: str) -> None:
    # on sm_90a the dots run on wgmma; Triton's DISABLE_MMA_V3 keeps the mma.sync path
    # tested there too
    with config.override(disable_mma_v3=True):
        _tutorial(dtype, 512, 768, 656, (128, 256, 64), 8, 3)
        _tutorial(dtype, 200, 136, 160, (64, 64, 32), 4, 2)


@pytest.mark.parametrize(
    "m, n, k, block, warps",
    [
        (384, 384, 1024, (128, 128, 32), 8),
        (256, 512, 48, (128, 256, 64), 8),  # one masked iteration only
        (200, 136, 160, (64, 64, 32), 4),  # M, N not multiples of the tile (wrapped rows)
        (64, 64, 4096, (64, 64, 64), 4),
        (128, 128, 16, (32, 32, 16), 1),
        (256, 256, 512, (128, 128, 64), 4),  # wgmma: two m64 slabs per warpgroup
        (256, 192, 96, (256, 64, 32), 8),  # wgmma: two warpgroups, 64-byte swizzle
        (128, 64, 64, (64, 32, 16), 4),  # wgmma: 32-byte swizzle, n32
    ],
)
def test_tutorial_matmul_shapes(m: int, n: int, k: int, block, warps: int) -> None:  # type: ignore[no-untyped-def]
    _tutorial("float16", m, n, k, block, warps, 3)


@pytest.mark.parametrize(
    "dtype, out, bound, b_k_contiguous",
    [
        ("float16", "float32", 1e-4, True),
        ("bfloat16", "float32", 1e-4, True),
        ("float32", "float32", 2e-3, True),  # tf32: K-contiguous operands only
        ("int8", "int32", 0.0, True),
        ("float16", "float32", 1e-4, False),
    ],
)
@pytest.mark.parametrize("stages", [2, 3])
def test_strided_operands(dtype: str, out: str, bound: float, b_k_contiguous: bool, stages: int) -> None:  # fmt: skip
    rng = np.random.default_rng()
    m, n, k = 192, 160, 336  # 336 = 5 * 64 + 16
    a, a_h = _inputs(dtype, (m, k), rng)
    b, b_h = _inputs(dtype, (n, k) if b_k_contiguous else (k, n), rng)
    b_h = b_h.T if b_k_contiguous else b_h
    c = _poisoned(out, (m, n))
    s_bk, s_bn = (1, k) if b_k_contiguous else (n, 1)
    grid = (-(-m // 64), -(-n // 64))
    strided_k_loop[grid](
        a, b, c, m, n, k, k, 1, s_bk, s_bn, BM=64, BN=64, BK=64, STAGES=stages, num_warps=4
    )
    _check(_host(c), a_h @ b_h, np.abs(a_h) @ np.abs(b_h), bound, out)


def test_two_dots_in_one_body() -> None:
    rng = np.random.default_rng()
    k = 512
    a, a_h = _inputs("float16", (64, k), rng)
    b, b_h = _inputs("float16", (k, 128), rng)
    d, d_h = _inputs("float16", (k, 128), rng)
    c = _poisoned("float32", (64, 128))
    two_dots[(1,)](a, b, d, c, k, BM=64, BN=128, BK=32, num_warps=4, num_stages=3)
    scale = np.abs(a_h) @ (np.abs(b_h) + np.abs(d_h))
    _check(_host(c), a_h @ b_h + a_h @ d_h, scale, 1e-4, "float32")


@pytest.mark.parametrize("inner", [0, 1])
def test_persistent_loop_around_the_k_loop(inner: int) -> None:
    rng = np.random.default_rng()
    m, n, k = 512, 384, 512
    a, a_h = _inputs("float16", (m, k), rng)
    b, b_h = _inputs("float16", (k, n), rng)
    c = _poisoned("float16", (m, n))
    persistent[(5,)](a, b, c, m, n, k, BM=128, BN=128, BK=32, INNER=inner, num_warps=8)
    _check(_host(c), a_h @ b_h, np.abs(a_h) @ np.abs(b_h), 1e-4, "float16")
