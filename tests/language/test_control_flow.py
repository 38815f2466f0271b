"""if/for/while on scalars, tl.range, tl.static_range, early return and nested @jit calls."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@tilec.jit
def _scale_pair(x, y, FACTOR: tl.constexpr):
    if FACTOR > 1:
        return x * FACTOR, y
    return x, y - 1


@tilec.jit
def _sign_sum(x):
    if tl.sum(x) > 0:
        return x + 1
    return x - 1


@tilec.jit
def _apply(fn, x):
    return fn(x)


@jit
def loops(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= 2:
        return
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    i = 0
    total = 0.0
    while i < n:
        total += tl.load(x_ptr + i)
        i += 1
    down = 0
    for j in tl.range(n, 0, -3, num_stages=2):
        down += j
    for k in tl.static_range(3):
        acc += k
    a, b = _scale_pair(acc, total, 2)
    c = _apply(_sign_sum, a)
    flag = 1 if total > 0 else -1
    out = out_ptr + pid * (BLOCK + 3)
    tl.store(out + tl.arange(0, BLOCK), c)
    tl.store(out + BLOCK, b)
    tl.store(out + BLOCK + 1, down.to(tl.float32))
    tl.store(out + BLOCK + 2, flag.to(tl.float32))


def test_loops_branches_and_calls():
    n, block = 45, 16
    x = random(n, np.float32)
    out = poisoned((3, block + 3), np.float32)
    loops[(3,)](x, out, n, BLOCK=block)
    x64 = x.astype(np.float64)
    acc = np.zeros(block)
    for s in range(0, n, block):
        chunk = x64[s : s + block]
        acc[: len(chunk)] += chunk
    acc = (acc + 3) * 2
    acc = acc + 1 if acc.sum() > 0 else acc - 1
    for pid in range(2):
        np.testing.assert_allclose(out[pid, :block], acc, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out[pid, block], x64.sum(), rtol=1e-5, atol=1e-5)
        assert out[pid, block + 1] == sum(range(n, 0, -3))
        assert out[pid, block + 2] == (1 if x64.sum() > 0 else -1)
    assert np.isnan(out[2]).all()  # the early return skipped program 2
