"""``tl.tuple`` and ``tl.tuple_type`` (Triton's names) over kernel tuples: built from tensors in
a kernel, compared and concatenated at compile time, and ``t.type`` naming element types."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def tuple_kernel(X, Y):
    x = tl.load(X + tl.arange(0, 8))
    t = tl.tuple([x + 1, x * 2])
    u = t + (x - 3,)  # noqa: RUF005 - tuple + is what is tested
    tl.static_assert(len(u) == 3)
    tl.static_assert(tl.tuple((1, 2)) == (1, 2))
    tl.static_assert(isinstance(u, tl.tuple))
    tl.static_assert(u.type == tl.tuple_type([tl.block_type(tl.float32, [8])] * 3))
    tl.static_assert(
        (1, 2**40, 1.5, True).type == tl.tuple_type([tl.int32, tl.int64, tl.float32, tl.int1])
    )
    for i in tl.static_range(3):
        tl.store(Y + i * 8 + tl.arange(0, 8), u[i])


def test_tuple_of_tensors():
    x = random(8, np.float32)
    y = poisoned((3, 8), np.float32)
    tuple_kernel[(1,)](x, y)
    xd = x.astype(np.float64)
    # each result is the float64 value rounded once to float32
    np.testing.assert_array_equal(y, np.stack([xd + 1, xd * 2, xd - 3]).astype(np.float32))


def test_host_side_names():
    assert tl.tuple([1, 2]) == (1, 2)
    assert isinstance((1,), tl.tuple) and not isinstance([1], tl.tuple)
    Point = namedtuple("Point", "x y")
    t = tl.tuple_type([tl.int32, tl.float32], Point._fields)
    assert t.name == "[x:i32,y:fp32]" and list(t) == [tl.int32, tl.float32] and t[1] is tl.float32
    assert t != tl.tuple_type([tl.int32, tl.float32])
