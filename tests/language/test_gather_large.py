"""``tl.gather`` whose one-hot product (index elements x source positions) passes Triton's
largest tile (2**20 elements) takes one source position at a time and gives the same exact
values: Triton's test_gather has src [128, 64] gathered by [256, 64] along axis 0."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def gather2d(src_ptr, idx_ptr, out_ptr, A: tl.constexpr, S0: tl.constexpr, S1: tl.constexpr, I0: tl.constexpr,
             I1: tl.constexpr):  # fmt: skip
    src = tl.load(src_ptr + tl.arange(0, S0)[:, None] * S1 + tl.arange(0, S1)[None, :])
    idx = tl.load(idx_ptr + tl.arange(0, I0)[:, None] * I1 + tl.arange(0, I1)[None, :])
    out = tl.gather(src, idx, A)
    tl.store(out_ptr + tl.arange(0, I0)[:, None] * I1 + tl.arange(0, I1)[None, :], out)


@jit
def gather1d(src_ptr, idx_ptr, out_ptr, S0: tl.constexpr, I0: tl.constexpr):
    out = tl.gather(tl.load(src_ptr + tl.arange(0, S0)), tl.load(idx_ptr + tl.arange(0, I0)), 0)
    tl.store(out_ptr + tl.arange(0, I0), out)


@pytest.mark.parametrize(
    "s0, s1, i0, i1, axis",
    [(128, 64, 256, 64, 0), (64, 2048, 64, 1024, 1), (8, 4, 16, 4, 0)],  # last: one-hot path
)
@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_gather_2d(s0, s1, i0, i1, axis, dtype):
    src = random((s0, s1), dtype, -1000, 1000)
    idx = np.random.default_rng().integers(0, (s0, s1)[axis], (i0, i1)).astype(np.int32)
    out = poisoned((i0, i1), dtype)
    gather2d[(1,)](src, idx, out, axis, s0, s1, i0, i1)
    np.testing.assert_array_equal(out, np.take_along_axis(src, idx, axis))


def test_gather_1d_past_the_tile_limit():
    src = random(2048, np.float64)
    idx = np.random.default_rng().integers(0, 2048, 1024).astype(np.int64)
    out = poisoned(1024, np.float64)
    gather1d[(1,)](src, idx, out, 2048, 1024)
    np.testing.assert_array_equal(out, src[idx])
