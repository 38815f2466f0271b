"""``x.shape`` follows Triton: it equals a list or a tuple of its sizes, has a length, indexes to
compile-time ints and works wherever a constexpr does (static_assert, static ``if``, shapes).
In kernel code a list and a tuple are one kind of value, as Triton's ``tl.tuple`` makes them."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host_np
from support.run import jit


@jit
def _rank_of(x):
    return len(x.shape)


@jit
def shape_facts(q, R: tl.constexpr, C: tl.constexpr):
    x = tl.zeros((R, C), dtype=tl.int32)
    v = tl.arange(0, C)
    tl.static_assert(v.shape == [C])
    tl.static_assert(v.shape == (C,))
    tl.static_assert([C] == v.shape)  # noqa: SIM300 (the list on the left is the case)
    tl.static_assert(v.shape != [C + 1])
    tl.static_assert(x.shape == [R, C])
    tl.static_assert(len(x.shape) == 2 and _rank_of(v) == 1)
    tl.static_assert(x.shape[0] == R and x.shape[-1] == C)
    tl.static_assert([1, [2, 3]] == (1, (2, 3)))
    col = tl.reshape(v, v.shape + [1])  # noqa: RUF005 (a list appended to a shape is the case)
    tl.static_assert(col.shape == [C, 1])
    if x.shape == [R, C]:
        first = 1
    else:
        first = 2
    tl.store(q, first)
    tl.store(q + 1, len(x.shape))
    tl.store(q + 2, x.shape[1])
    tl.store(q + 3 + tl.arange(0, x.shape[1]), tl.sum(x + 1, axis=0))
    tl.store(q + 3 + C + tl.arange(0, C), tl.sum(col, axis=1) * 2)


@pytest.mark.parametrize("device", DEVICES)
def test_shape_compares_like_tritons(device):
    out = dev(np.full(3 + 16, -1, np.int32), device)
    shape_facts[(1,)](out, R=4, C=8)
    got = host_np(out)
    np.testing.assert_array_equal(got[:3], [1, 2, 8])
    np.testing.assert_array_equal(got[3:11], np.full(8, 4))
    np.testing.assert_array_equal(got[11:], np.arange(8) * 2)


@tilec.jit
def wrong_shape(q):
    tl.static_assert(tl.arange(0, 16).shape == [8], "not 8")
    tl.store(q, 0)


def test_a_false_shape_assertion_fails():
    pytest.importorskip("tilec.backends.cpu")
    with pytest.raises(tilec.TilecError, match="not 8"):
        wrong_shape[(1,)](np.zeros(1, np.int32))


def test_cuda_lowering_assembles():
    assert_assembles(shape_facts, "*i32", 4, 8)
