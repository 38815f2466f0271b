"""Block pointers, tensor descriptors, 2-D/3-D grids and atomics under contention."""

from __future__ import annotations

import numpy as np

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def block_copy(x_ptr, out_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    src = tl.make_block_ptr(
        base=x_ptr,
        shape=(M, N),
        strides=(stride_m, 1),
        offsets=(pm * BM, 0),
        block_shape=(BM, BN),
        order=(1, 0),
    )
    src = tl.advance(src, (0, pn * BN))
    dst = tl.make_block_ptr(out_ptr, (M, N), (stride_m, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
    tl.store(dst, tile + 1, boundary_check=(0, 1))


def test_block_pointers_ragged_2d_grid():
    m, n = 37, 50
    x = random((m, n), np.float32)
    out = poisoned((m, n), np.float32)
    block_copy[(3, 4)](x, out, m, n, n, BM=16, BN=16)
    np.testing.assert_array_equal(out, x + 1)


@jit
def desc_copy(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    om, on = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([om, on], src.load([om, on]) * 2)


def test_tensor_descriptors():
    m, n = 20, 24
    x = random((m, n), np.float32)
    out = poisoned((m, n), np.float32)
    desc_copy[(2, 3)](x, out, m, n, BM=16, BN=8)
    np.testing.assert_array_equal(out, x * 2)


@jit
def grid3d(out_ptr, X: tl.constexpr, Y: tl.constexpr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    tl.store(out_ptr + (z * ny + y) * nx + x, x + 10 * y + 100 * z)


def test_3d_grid():
    out = poisoned((3, 4, 5), np.int32)
    grid3d[(5, 4, 3)](out, X=5, Y=4)
    z, y, x = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(out, x + 10 * y + 100 * z)


@jit
def histogram(x_ptr, bins_ptr, maxes_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + v, 1, mask=mask)
    tl.atomic_max(maxes_ptr + v, offs, mask=mask, sem="relaxed")


def test_atomics_under_contention():
    n = 4000
    x = random(n, np.int32, 0, 7)
    bins = np.zeros(8, np.int32)
    maxes = np.full(8, -1, np.int32)
    histogram[(n // 64 + 1,)](x, bins, maxes, n, BLOCK=64)
    np.testing.assert_array_equal(bins, np.bincount(x, minlength=8))
    want = np.array([np.nonzero(x == b)[0].max() if (x == b).any() else -1 for b in range(8)])
    np.testing.assert_array_equal(maxes, want)


@jit
def cas_counter(lock_ptr, out_ptr):
    old = tl.atomic_cas(lock_ptr, 0, 1)
    tl.store(out_ptr + tl.program_id(0), old)
    tl.atomic_xchg(lock_ptr + 1, tl.program_id(0))
    tl.atomic_or(lock_ptr + 2, 1 << (tl.program_id(0) % 31))


def test_cas_xchg_or():
    lock = np.zeros(3, np.int32)
    out = poisoned(40, np.int32)
    cas_counter[(40,)](lock, out)
    assert sorted(out.tolist()) == [0] + [1] * 39
    assert 0 <= lock[1] < 40
    assert lock[2] == np.bitwise_or.reduce([1 << (i % 31) for i in range(40)])


@jit
def bool_roundtrip(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    b = tl.load(x_ptr + offs, mask=mask, other=False)
    tl.store(out_ptr + offs, not b, mask=mask)


def test_bool_memory():
    x = np.random.default_rng().integers(0, 2, 50).astype(bool)
    out = np.zeros(50, bool)
    bool_roundtrip[(1,)](x, out, 50, BLOCK=64)
    np.testing.assert_array_equal(out, ~x)


@jit
def scatter_add(x_ptr, idx_ptr, sum_ptr, min_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    i = tl.load(idx_ptr + offs, mask=mask, other=0)
    tl.atomic_add(sum_ptr + i, x, mask=mask)
    tl.atomic_min(min_ptr + i, x, mask=mask)
    tl.atomic_add(cnt_ptr + i, 1, mask=mask)


def test_float_and_int64_atomics_under_contention():
    n = 3000
    x = random(n, np.float32, -1, 1)
    idx = random(n, np.int32, 0, 3)
    sums, mins = np.zeros(4, np.float32), np.full(4, np.inf, np.float32)
    counts = np.zeros(4, np.int64)
    scatter_add[(n // 128 + 1,)](x, idx, sums, mins, counts, n, BLOCK=128)
    for b in range(4):
        np.testing.assert_allclose(
            sums[b], x[idx == b].astype(np.float64).sum(), rtol=1e-4, atol=1e-4
        )
        assert mins[b] == x[idx == b].min()
        assert counts[b] == (idx == b).sum()
