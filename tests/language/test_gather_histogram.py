"""tl.gather and tl.histogram (tl library code) against numpy."""

from __future__ import annotations

import numpy as np

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def gather_kernel(src_ptr, idx_ptr, out1_ptr, out0_ptr, outr_ptr, M: tl.constexpr, N: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    src = tl.load(src_ptr + rm[:, None] * N + rn[None, :])
    idx1 = tl.load(idx_ptr + rm[:, None] * N + rn[None, :]) % N
    tl.store(out1_ptr + rm[:, None] * N + rn[None, :], tl.gather(src, idx1, axis=1))
    idx0 = tl.load(idx_ptr + rm[:, None] * N + rn[None, :]) % M
    tl.store(out0_ptr + rm[:, None] * N + rn[None, :], tl.gather(src, idx0, 0))
    row = tl.load(src_ptr + rn)
    tl.store(outr_ptr + rn, row.gather(tl.load(idx_ptr + rn) % N, 0))


def test_gather():
    m, n = 4, 8
    src = random((m, n), np.float32)
    idx = random((m, n), np.int32, 0, 1000)
    o1, o0, orow = (
        poisoned((m, n), np.float32),
        poisoned((m, n), np.float32),
        poisoned(n, np.float32),
    )
    gather_kernel[(1,)](src, idx, o1, o0, orow, M=m, N=n)
    np.testing.assert_array_equal(o1, np.take_along_axis(src, idx % n, 1))
    np.testing.assert_array_equal(o0, np.take_along_axis(src, idx % m, 0))
    np.testing.assert_array_equal(orow, src[0][idx.ravel()[:n] % n])


@jit
def hist_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=offs < n))


def test_histogram():
    x = random(200, np.int32, 0, 15)
    out = poisoned(16, np.int32)
    hist_kernel[(1,)](x, out, 200, BLOCK=256, BINS=16)
    np.testing.assert_array_equal(out, np.bincount(x, minlength=16))
