"""Elementwise add with a range mask over a ragged size: the first end-to-end CPU kernel."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg

from .support import Kernel, kernel, poisoned

BLOCK = 256


def _add(b, x, y, out, n) -> None:
    pid = b.program_id(0)
    start = b.binary(O.BinaryKind.MUL, pid, b.constant(BLOCK, T.int32))
    offs = b.binary(O.BinaryKind.ADD, b.splat(start, (BLOCK,)), b.make_range(0, BLOCK))
    mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (BLOCK,)))
    xv = b.load(b.addptr(b.splat(x, (BLOCK,)), offs), mask)
    yv = b.load(b.addptr(b.splat(y, (BLOCK,)), offs), mask)
    b.store(b.addptr(b.splat(out, (BLOCK,)), offs), b.binary(O.BinaryKind.ADD, xv, yv), mask)


@pytest.mark.parametrize("n", [1, 255, 1000, 4096 + 3])
def test_vector_add(n: int) -> None:
    specs = [
        pointer_arg("x", T.float32),
        pointer_arg("y", T.float32),
        pointer_arg("out", T.float32),
        scalar_arg("n", T.int32),
    ]
    k = Kernel(kernel(specs, _add))
    rng = np.random.default_rng()
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = poisoned(n + 8, np.float32)
    status = k((n + BLOCK - 1) // BLOCK, x, y, out, n)
    assert status[0] == 0
    np.testing.assert_allclose(out[:n], x.astype(np.float64) + y, rtol=1e-6)
    assert np.isnan(out[n:]).all(), "masked-off lanes were written"


def test_vectorized() -> None:
    specs = [
        pointer_arg("x", T.float32),
        pointer_arg("y", T.float32),
        pointer_arg("out", T.float32),
        scalar_arg("n", T.int32),
    ]
    k = Kernel(kernel(specs, _add))
    llir = k.compiled.asm["llir"]
    assert "<4 x float>" in llir or "<8 x float>" in llir or "<16 x float>" in llir, llir
