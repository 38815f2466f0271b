"""Store loops that stream memory to memory ask the vectorizer for 256-bit vectors on 512-bit
targets; compute-heavy stores, stores of values not read from memory and narrower targets keep
LLVM's own choice."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.backends.cpu.program import build_module
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel

N = 256
WIDTH_8 = '!"llvm.loop.vectorize.width", i32 8'


def _store_kernel(value: str) -> O.ModuleOp:
    def body(b, px, py, pout) -> None:
        offs = b.make_range(0, N)

        def ld(p):
            return b.load(b.addptr(b.splat(p, (N,)), offs))

        if value == "constant":
            v = b.constant(1.5, T.TileType((N,), T.float32))
        else:
            v = b.binary(O.BinaryKind.ADD, ld(px), ld(py))
        if value == "exp":
            v = b.math("exp", v)
        b.store(b.addptr(b.splat(pout, (N,)), offs), v)

    specs = [pointer_arg(n, T.float32) for n in ("x", "y", "out")]
    return kernel(specs, body)


def _ir(module: O.ModuleOp, features: str) -> str:
    func = module.functions[0]
    llmod, _, _ = build_module(func, "x86_64-unknown-linux-gnu", "", features)
    return str(llmod)


@pytest.mark.parametrize(
    ("value", "features", "asked"),
    [
        ("add", "+avx2,+avx512f", True),  # a vector add: streaming
        ("add", "+avx2", False),  # 256-bit registers: nothing to ask
        ("exp", "+avx2,+avx512f", False),  # an exp per element: compute keeps full width
        ("constant", "+avx2,+avx512f", False),  # nothing read: a fill, not a stream
    ],
)
def test_width_hint(value: str, features: str, asked: bool) -> None:
    assert (WIDTH_8 in _ir(_store_kernel(value), features)) is asked


def test_streaming_store_computes_the_same() -> None:
    rng = np.random.default_rng()
    x, y = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
    out = np.full(N, np.nan, np.float32)
    Kernel(_store_kernel("add"))(1, x, y, out)
    np.testing.assert_array_equal(out, x + y)
