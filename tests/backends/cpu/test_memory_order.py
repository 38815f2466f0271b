"""Loads keep tile semantics although they are fused lazily into later loops: a value loaded
before a store, or before a loop that stores, is the value memory held at the load."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from tilec import config


@tilec.jit
def swap(p, q, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(p + offs)
    b = tl.load(q + offs)
    tl.store(p + offs, b)
    tl.store(q + offs, a)


@tilec.jit
def shift_in_loop(p, out, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    first = tl.load(p + offs)  # read once, before the loop overwrites p
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(n_iter):
        tl.store(p + offs, first + i + 1.0)
        acc += first
    tl.store(out + offs, acc)


@tilec.jit
def carries(out, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = offs.to(tl.float32)
    b = -offs.to(tl.float32)
    for _ in range(n_iter):
        a, b = b, a + 1.0  # tile carries that read each other
    tl.store(out + offs, a)
    tl.store(out + BLOCK + offs, b)


@tilec.jit
def backwards(x, out, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ptrs = x + (STEPS - 1) * BLOCK + offs
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _i in range(STEPS - 1, -1, -1):
        acc = acc * 2.0 + tl.load(ptrs)
        ptrs -= BLOCK
    tl.store(out + offs, acc)


@tilec.jit
def early_exit(x, out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if pid * BLOCK >= n:
        return
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    if tl.sum(v) > 0:
        v = v * 2.0
    else:
        v = v - 1.0
    tl.store(out + offs, v, mask=offs < n)


def test_swap_reads_before_writes() -> None:
    p = np.arange(64, dtype=np.float32)
    q = -np.arange(64, dtype=np.float32)
    p0, q0 = p.copy(), q.copy()
    swap[(1,)](p, q, BLOCK=64)
    np.testing.assert_array_equal(p, q0)
    np.testing.assert_array_equal(q, p0)


def test_load_before_loop_is_not_reread() -> None:
    p = np.random.default_rng().standard_normal(32).astype(np.float32)
    first = p.copy()
    out = np.full(32, np.nan, np.float32)
    shift_in_loop[(1,)](p, out, 5, BLOCK=32)
    np.testing.assert_allclose(out, first * 5, rtol=1e-6)
    np.testing.assert_allclose(p, first + 5, rtol=1e-6)


def test_tile_carries_that_swap() -> None:
    out = np.full(32, np.nan, np.float32)
    carries[(1,)](out, 3, BLOCK=16)
    a, b = np.arange(16.0), -np.arange(16.0)
    for _ in range(3):
        a, b = b, a + 1
    np.testing.assert_array_equal(out[:16], a)
    np.testing.assert_array_equal(out[16:], b)


def test_pointer_carry_with_negative_step() -> None:
    x = np.random.default_rng().standard_normal(4 * 8).astype(np.float32)
    out = np.full(8, np.nan, np.float32)
    backwards[(1,)](x, out, BLOCK=8, STEPS=4)
    # the kernel's float32 steps in its order (doubling is exact, so fused or not they round
    # alike); a float64 reference would differ by float32 rounding wherever rows cancel
    rows = x.reshape(4, 8)
    want = np.zeros(8, np.float32)
    for i in range(3, -1, -1):
        want = want * np.float32(2) + rows[i]
    np.testing.assert_array_equal(out, want)


def test_early_return_and_branches_on_two_threads() -> None:
    n = 1000
    x = np.random.default_rng().standard_normal(n).astype(np.float32)
    out = np.full(n + 100, np.nan, np.float32)
    with config.override(num_threads=2):
        early_exit[(20,)](x, out, n, BLOCK=64)
    want = x.astype(np.float64).copy()
    for s in range(0, n, 64):
        blk = want[s : s + 64]
        want[s : s + 64] = blk * 2 if blk.astype(np.float32).sum() > 0 else blk - 1
    np.testing.assert_allclose(out[:n], want, rtol=1e-6)
    assert np.isnan(out[n:]).all()
