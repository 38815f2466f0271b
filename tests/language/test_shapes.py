"""Creation and shape ops: full, reshape, trans/permute, join/split, interleave, cat, flip,
expand_dims and None-indexing, casts and bitcasts."""

from __future__ import annotations

import numpy as np

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def shapes(
    x_ptr, t_ptr, j_ptr, s_ptr, f_ptr, i_ptr, c_ptr, r_ptr, M: tl.constexpr, N: tl.constexpr
):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(t_ptr + rn[:, None] * M + rm[None, :], x.T + tl.permute(x, 1, 0) - tl.trans(x))
    y = x + 1
    j = tl.join(x, y)
    tl.static_assert(j.shape == (M, N, 2))
    tl.store(
        j_ptr + (rm[:, None, None] * N + rn[None, :, None]) * 2 + tl.arange(0, 2)[None, None, :], j
    )
    a, b = tl.split(j)
    tl.store(s_ptr + rm[:, None] * N + rn[None, :], b - a + tl.full((M, N), 7, tl.int8))
    tl.store(f_ptr + rm[:, None] * N + rn[None, :], tl.flip(x, 1))
    flat = tl.reshape(x, M * N)
    tl.store(i_ptr + tl.arange(0, 2 * M * N), tl.interleave(flat, flat * 2))
    tl.store(c_ptr + tl.arange(0, 2 * M * N), tl.cat(flat, flat, can_reorder=True))
    col = tl.expand_dims(rm, 1)
    tl.store(r_ptr + rm[:, None] * N + rn[None, :], tl.broadcast_to(col, (M, N)) + tl.zeros_like(x))


def test_shape_ops():
    m, n = 4, 8
    x = random((m, n), np.float32)
    t, j = poisoned((n, m), np.float32), poisoned((m, n, 2), np.float32)
    s, f = poisoned((m, n), np.float32), poisoned((m, n), np.float32)
    i, c, r = (
        poisoned(2 * m * n, np.float32),
        poisoned(2 * m * n, np.float32),
        poisoned((m, n), np.float32),
    )
    shapes[(1,)](x, t, j, s, f, i, c, r, M=m, N=n)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(j, np.stack([x, x + 1], axis=-1))
    np.testing.assert_array_equal(s, np.full((m, n), 8.0))
    np.testing.assert_array_equal(f, x[:, ::-1])
    np.testing.assert_array_equal(i, np.stack([x.ravel(), x.ravel() * 2], axis=-1).ravel())
    np.testing.assert_array_equal(np.sort(c), np.sort(np.concatenate([x.ravel(), x.ravel()])))
    np.testing.assert_array_equal(r, np.broadcast_to(np.arange(m)[:, None], (m, n)))


@jit
def casts(x_ptr, h_ptr, i_ptr, u_ptr, bits_ptr, z_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(h_ptr + offs, x.to(tl.float16))
    tl.store(i_ptr + offs, x.to(tl.int32))
    tl.store(u_ptr + offs, tl.cast(x, tl.uint8))
    tl.store(bits_ptr + offs, x.to(tl.int32, bitcast=True))
    tl.store(z_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float32))


def test_casts():
    x = random(64, np.float32, 0, 200)
    h, i, u = poisoned(64, np.float16), poisoned(64, np.int32), poisoned(64, np.uint8)
    bits, z = poisoned(64, np.int32), poisoned(64, np.float32)
    casts[(1,)](x, h, i, u, bits, z, N=64)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(i, np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(u, np.trunc(x).astype(np.uint8))
    np.testing.assert_array_equal(bits, x.view(np.int32))
    np.testing.assert_array_equal(z, (x.view(np.uint32) & 0xFFFF0000).view(np.float32))
