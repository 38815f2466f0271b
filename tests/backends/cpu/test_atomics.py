"""Atomics are real atomic instructions: exact results with many programs on several threads."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel

BLOCK = 64
NP = {
    T.int32: np.int32,
    T.float32: np.float32,
    T.uint32: np.uint32,
    T.int64: np.int64,
    T.float64: np.float64,
    T.float16: np.float16,
}


def _rmw(kind: O.AtomicKind, t: T.ScalarType, masked: bool) -> Kernel:
    """Each program combines its BLOCK values into counter[i % 4] and records the old values."""

    def body(b, x, counter, old) -> None:
        pid = b.program_id(0)
        offs = b.binary(
            O.BinaryKind.ADD,
            b.splat(b.binary(O.BinaryKind.MUL, pid, b.constant(BLOCK, T.int32)), (BLOCK,)),
            b.make_range(0, BLOCK),
        )
        v = b.load(b.addptr(b.splat(x, (BLOCK,)), offs))
        slot = b.binary(
            O.BinaryKind.AND, b.make_range(0, BLOCK), b.constant(3, T.TileType((BLOCK,), T.int32))
        )
        mask = None
        if masked:
            mask = b.compare(
                O.CompareKind.LT,
                b.make_range(0, BLOCK),
                b.constant(BLOCK - 8, T.TileType((BLOCK,), T.int32)),
            )
        r = b.atomic_rmw(kind, b.addptr(b.splat(counter, (BLOCK,)), slot), v, mask)
        b.store(b.addptr(b.splat(old, (BLOCK,)), offs), r, mask)

    specs = [pointer_arg("x", t), pointer_arg("counter", t), pointer_arg("old", t)]
    return Kernel(kernel(specs, body))


CASES = [
    (O.AtomicKind.ADD, T.int32),
    (O.AtomicKind.ADD, T.float32),
    (O.AtomicKind.ADD, T.int64),
    (O.AtomicKind.ADD, T.float64),
    (O.AtomicKind.MAX, T.int32),
    (O.AtomicKind.MIN, T.int32),
    (O.AtomicKind.MAX, T.uint32),
    (O.AtomicKind.MAX, T.float32),
    (O.AtomicKind.MIN, T.float32),
    (O.AtomicKind.AND, T.int32),
    (O.AtomicKind.OR, T.int32),
    (O.AtomicKind.XOR, T.uint32),
    (O.AtomicKind.ADD, T.float16),
]


@pytest.mark.parametrize(("kind", "t"), CASES, ids=lambda c: str(getattr(c, "value", c)))
@pytest.mark.parametrize("masked", [False, True])
def test_rmw_under_contention(kind: O.AtomicKind, t: T.ScalarType, masked: bool) -> None:
    programs = 100 if t is T.float16 else 200
    dtype = NP[t]
    rng = np.random.default_rng()
    if t is T.float16:  # sums of 0/1 stay exact below 2048 in any order
        x = rng.integers(0, 2, programs * BLOCK).astype(dtype)
    elif np.issubdtype(dtype, np.floating):
        x = (rng.integers(-8, 8, programs * BLOCK) / 4).astype(dtype)  # exact sums in any order
    else:
        x = rng.integers(0, 1 << 20, programs * BLOCK).astype(dtype)
    start = {O.AtomicKind.AND: -1, O.AtomicKind.MIN: 1 << 20}.get(kind, 0)
    counter = np.full(4, start, dtype=dtype)
    old = np.zeros(programs * BLOCK, dtype=dtype)
    status = _rmw(kind, t, masked)(programs, x, counter, old, threads=2)
    assert status[0] == 0
    lanes = x.reshape(programs, BLOCK)
    if masked:
        lanes = lanes[:, : BLOCK - 8]
    ufunc = {
        O.AtomicKind.ADD: np.add,
        O.AtomicKind.MAX: np.maximum,
        O.AtomicKind.MIN: np.minimum,
        O.AtomicKind.AND: np.bitwise_and,
        O.AtomicKind.OR: np.bitwise_or,
        O.AtomicKind.XOR: np.bitwise_xor,
    }[kind]
    for s in range(4):
        vals = lanes[:, s::4].ravel()
        want = ufunc.reduce(np.concatenate([np.array([start], dtype=dtype), vals]))
        if np.issubdtype(dtype, np.floating):
            np.testing.assert_allclose(counter[s], want, rtol=1e-9)
        else:
            assert counter[s] == want
    if kind is O.AtomicKind.ADD and not np.issubdtype(dtype, np.floating):
        # every old value is a distinct prefix sum: each add was seen exactly once
        assert len(np.unique(old.reshape(programs, BLOCK)[:, 0])) == programs


def test_cas_takes_each_ticket_once() -> None:
    """Programs race to claim tickets with compare-and-swap; each ticket has one winner."""

    def body(b, tickets, winners) -> None:
        pid = b.program_id(0)
        offs = b.make_range(0, BLOCK)
        ptrs = b.addptr(b.splat(tickets, (BLOCK,)), offs)
        zero = b.constant(0, T.TileType((BLOCK,), T.int32))
        me = b.splat(b.binary(O.BinaryKind.ADD, pid, b.constant(1, T.int32)), (BLOCK,))
        old = b.atomic_cas(ptrs, zero, me)
        won = b.compare(O.CompareKind.EQ, old, zero)
        one = b.constant(1, T.TileType((BLOCK,), T.int32))
        b.atomic_rmw(O.AtomicKind.ADD, b.addptr(b.splat(winners, (BLOCK,)), offs), one, won)

    k = Kernel(kernel([pointer_arg("tickets", T.int32), pointer_arg("winners", T.int32)], body))
    tickets = np.zeros(BLOCK, np.int32)
    winners = np.zeros(BLOCK, np.int32)
    k(300, tickets, winners, threads=2)
    assert (winners == 1).all() and (tickets > 0).all()
