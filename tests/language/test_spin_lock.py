"""The layer-norm-backward pattern: a spin lock (while atomic_cas), a first-writer flag and
a debug_barrier, with many programs contending for few locks."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@tilec.jit
def _as_descriptor(d, shape, strides, block_shape):
    if isinstance(d, tl.tensor_descriptor):
        return d
    return tl.make_tensor_descriptor(d, shape, strides, block_shape)


@jit
def locked_sum(x_ptr, partial_ptr, lock_ptr, count_ptr, N: tl.constexpr, GROUPS: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + pid * N + cols)
    g = pid % GROUPS
    while tl.atomic_cas(lock_ptr + g, 0, 1) == 1:
        pass
    count = tl.load(count_ptr + g)
    if count == 0:
        tl.atomic_xchg(count_ptr + g, 1)
    else:
        x += tl.load(partial_ptr + g * N + cols)
    tl.store(partial_ptr + g * N + cols, x)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr + g, 0)


@jit
def desc_first_row(x_ptr, out_ptr, N: tl.constexpr):
    d = _as_descriptor(_as_descriptor(x_ptr, [4, N], [N, 1], [1, N]), [4, N], [N, 1], [1, N])
    tl.store(out_ptr + tl.arange(0, N)[None, :], d.load([0, 0]))


def test_spin_lock_accumulation():
    x = random((96, 16), np.float32)
    partial = poisoned((4, 16), np.float32)
    lock, count = np.zeros(4, np.int32), np.zeros(4, np.int32)
    locked_sum[(96,)](x, partial, lock, count, N=16, GROUPS=4)
    np.testing.assert_allclose(
        partial, x.astype(np.float64).reshape(24, 4, 16).sum(0), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_array_equal(lock, 0)
    np.testing.assert_array_equal(count, 1)


def test_isinstance_tensor_descriptor():
    x = random((4, 16), np.float32)
    out = poisoned(16, np.float32)
    desc_first_row[(1,)](x, out, N=16)
    np.testing.assert_array_equal(out, x[0])
