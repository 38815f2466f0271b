"""``tl.const`` parameters: loads through them work; a store or atomic through one (or a pointer
computed from one) is a compile error, and so is a name, return value or conditional expression
that is a const pointer on one path and a mutable pointer on the other (as Triton's types make
it)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def copy(src: tl.const, dst, N: tl.constexpr):
    r = tl.arange(0, N)
    p = src + r
    tl.store(dst + r, tl.load(p) * 2)


def test_loads_through_const_pointers():
    x = random(16, np.float32, -1, 1)
    y = poisoned(16, np.float32)
    copy[(1,)](x, y, N=16)
    np.testing.assert_array_equal(y, x * 2)


@jit
def store_derived(src: tl.const, N: tl.constexpr):
    p = src + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(tl.trans(p), 1.0)


@jit
def atomic_to_const(src: tl.const):
    tl.atomic_add(src, 1.0)


@jit
def merged_const(src: tl.const, N: tl.constexpr):
    p = src
    for _ in range(3):
        p = p + N
    tl.store(p, 1.0)


@pytest.mark.parametrize("kernel", [store_derived, atomic_to_const, merged_const])
def test_writes_are_refused(kernel):
    x = np.zeros(64, np.float32)
    args = (x,) if kernel is atomic_to_const else (x, 4)
    with pytest.raises(tilec.CompileError, match="Cannot store to a constant pointer"):
        kernel.warmup(*args, grid=(1,))


@jit
def pick(a, b, choose_b):
    if choose_b:
        return b
    return a


@jit
def mixed_return(src: tl.const, dst, flag):
    tl.store(pick(dst, src, flag), 1.0)


@jit
def mixed_ternary(src: tl.const, dst, flag):
    p = src if flag else dst
    tl.store(p, 1.0)


@jit
def mixed_if(src: tl.const, dst, flag):
    if flag:
        p = src
    else:
        p = dst
    tl.store(p, 1.0)


@jit
def mixed_loop(src: tl.const, dst, n):
    p = src
    for _ in range(n):
        p = dst
    tl.load(p)


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (mixed_return, "Return type mismatch: "),
        (mixed_ternary, "Ternary expression with dynamic condition has inconsistent type: "),
        (mixed_if, "Mismatched type for p: "),
        (mixed_loop, "Mismatched type for p: "),
    ],
)
def test_const_and_mutable_do_not_merge(kernel, message):
    x, y = np.zeros(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(tilec.CompileError, match=message):
        kernel.warmup(x, y, 3, grid=(1,))


def test_error_carries_its_plain_message():
    x = np.zeros(4, np.float32)
    with pytest.raises(tilec.CompileError) as info:
        atomic_to_const.warmup(x, grid=(1,))
    assert info.value.error_message.startswith("Cannot store to a constant pointer")
