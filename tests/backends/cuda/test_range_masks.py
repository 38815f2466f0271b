"""Bounds masks of ``tl.arange`` against a scalar (backends/cuda/range_compare.py).

Offline: the masks are one limit per thread compared with immediates (no coordinate register
per element). On a GPU (marked gpu): every compare kind, both operand orders, a range that
does not start at 0, and bounds below, inside and beyond the range, the i32 extremes included.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from cuda_harness import gpu_available

import tilec
import tilec.language as tl
from tilec import config

BLOCK, START = 1024, 96


@tilec.jit
def masks(out, n, START: tl.constexpr, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    c = tl.arange(START, START + BLOCK)
    o = tl.arange(0, BLOCK)
    tl.store(out + 0 * BLOCK + o, (c < n).to(tl.int8))
    tl.store(out + 1 * BLOCK + o, (c <= n).to(tl.int8))
    tl.store(out + 2 * BLOCK + o, (c > n).to(tl.int8))
    tl.store(out + 3 * BLOCK + o, (c >= n).to(tl.int8))
    tl.store(out + 4 * BLOCK + o, (n > c).to(tl.int8))
    tl.store(out + 5 * BLOCK + o, (n <= c).to(tl.int8))


@tilec.jit
def row_copy(out, x, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    tl.store(out + cols, tl.load(x + cols, mask=inside, other=0.0), mask=inside)


def _reference(n: int) -> np.ndarray:
    c = np.arange(START, START + BLOCK, dtype=np.int64)
    return np.stack([c < n, c <= n, c > n, c >= n, n > c, n <= c]).astype(np.int8)


def _ptx(kernel, signature: str, num_warps: int = 4) -> str:  # type: ignore[no-untyped-def]
    with config.override(cache_enabled=False):
        compiled = tilec.compile(kernel, signature, target="cuda:sm_90a", num_warps=num_warps)
    return str(compiled.asm["ptx"])


def test_a_row_mask_compares_one_limit_with_immediates() -> None:
    ptx = _ptx(row_copy, "*fp32:16, *fp32:16, i32:16, BLOCK=8192", num_warps=8)
    compares = re.findall(r"setp\.(\w+)\.s32\s+%p\d+, (%r\d+), (-?\d+|%r\d+);", ptx)
    with_immediates = [c for c in compares if not c[2].startswith("%")]
    assert len(with_immediates) >= 8, compares  # 32 elements per thread: 8 vectors
    assert len({c[1] for c in with_immediates}) == 1, with_immediates  # one limit register


def test_every_compare_kind_compiles() -> None:
    ptx = _ptx(masks, f"*i8, i32, START={START}, BLOCK={BLOCK}")
    assert ptx.count("st.global") >= 6


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch")
@pytest.mark.parametrize(
    "n", [-(2**31), -5, -1, 0, 1, START - 1, START, START + 7, START + BLOCK - 1, 5000, 2**31 - 1]
)
def test_masks_on_the_gpu(n: int) -> None:
    import torch

    out = torch.full((6, BLOCK), -1, dtype=torch.int8, device="cuda")
    masks[(1,)](out, n, START=START, BLOCK=BLOCK)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), _reference(n))
