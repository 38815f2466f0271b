"""Inclusive scans along either axis of 2-D tiles, forward and reversed."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel
from .test_shape_views import _offsets

SHAPE = (8, 16)


def _scan_kernel(axis: int, reverse: bool, kind: O.BinaryKind) -> Kernel:
    def body(b, x, out) -> None:
        v = b.load(b.addptr(b.splat(x, SHAPE), _offsets(b, SHAPE)))
        scan = b.scan([v], axis, reverse)
        with b.at_end_of(scan.combine):
            b.yield_([b.binary(kind, *scan.combine.args)])
        b.store(b.addptr(b.splat(out, SHAPE), _offsets(b, SHAPE)), scan.result)

    return Kernel(kernel([pointer_arg("x", T.int32), pointer_arg("out", T.int32)], body))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(
    ("kind", "ufunc"), [(O.BinaryKind.ADD, np.add), (O.BinaryKind.MAX, np.maximum)]
)
def test_scan(axis: int, reverse: bool, kind, ufunc) -> None:
    x = np.random.default_rng().integers(-50, 50, SHAPE).astype(np.int32)
    out = np.full(SHAPE, -999, np.int32)
    _scan_kernel(axis, reverse, kind)(1, x, out)
    src = np.flip(x, axis) if reverse else x
    want = ufunc.accumulate(src, axis=axis)
    np.testing.assert_array_equal(out, np.flip(want, axis) if reverse else want)
