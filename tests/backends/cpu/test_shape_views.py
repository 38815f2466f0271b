"""Shape ops are index remappings over their source: reshape (general and squeeze), 3-D
permutes, flips on any axis, cat, join/split, broadcasts, checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel


def _offsets(b, shape):
    total = None
    stride = 1
    for axis in reversed(range(len(shape))):
        r = b.make_range(0, shape[axis])
        for _ in range(axis):
            r = b.expand_dims(r, 0)
        for _ in range(len(shape) - axis - 1):
            r = b.expand_dims(r, r.type.rank)
        r = b.broadcast(r, shape)
        if stride != 1:
            r = b.binary(O.BinaryKind.MUL, r, b.constant(stride, T.TileType(tuple(shape), T.int32)))
        total = r if total is None else b.binary(O.BinaryKind.ADD, total, r)
        stride *= shape[axis]
    return total


def _run(in_shape, out_shape, transform) -> tuple[np.ndarray, np.ndarray]:
    def body(b, x, out) -> None:
        v = b.load(b.addptr(b.splat(x, in_shape), _offsets(b, in_shape)))
        v = b.math("exp", v)  # an expensive source: views read a materialized buffer
        b.store(b.addptr(b.splat(out, out_shape), _offsets(b, out_shape)), transform(b, v))

    k = Kernel(kernel([pointer_arg("x", T.float32), pointer_arg("out", T.float32)], body))
    x = np.random.default_rng().standard_normal(in_shape).astype(np.float32)
    out = np.full(out_shape, np.nan, np.float32)
    k(1, x, out)
    return np.exp(x.astype(np.float64)).astype(np.float32), out


@pytest.mark.parametrize(
    ("src", "dst"),
    [
        ((4, 8), (32,)),
        ((32,), (2, 4, 4)),
        ((4, 8), (8, 4)),
        ((2, 1, 8), (2, 8)),
        ((2, 8), (2, 1, 8, 1)),
    ],
)
def test_reshape(src, dst) -> None:
    ex, out = _run(src, dst, lambda b, v: b.reshape(v, dst))
    np.testing.assert_allclose(out, ex.reshape(dst), rtol=3e-7)


@pytest.mark.parametrize("perm", [(0, 2, 1), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_permute_3d(perm) -> None:
    src = (2, 4, 8)
    dst = tuple(src[p] for p in perm)
    ex, out = _run(src, dst, lambda b, v: b.trans(v, perm))
    np.testing.assert_allclose(out, ex.transpose(perm), rtol=3e-7)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_flip(axis) -> None:
    ex, out = _run((2, 4, 8), (2, 4, 8), lambda b, v: b.flip(v, axis))
    np.testing.assert_allclose(out, np.flip(ex, axis), rtol=3e-7)


def test_cat_join_split() -> None:
    def transform(b, v):
        both = b.cat(v, b.flip(v, 0))  # (8, 4)
        lo, hi = b.split(b.join(both, b.math("neg", both)))
        return b.binary(O.BinaryKind.SUB, lo, hi)  # both - (-both) = 2 * both

    ex, out = _run((4, 4), (8, 4), transform)
    np.testing.assert_allclose(out, 2 * np.concatenate([ex, ex[::-1]]), rtol=3e-7)
