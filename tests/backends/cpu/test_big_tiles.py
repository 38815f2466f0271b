"""Tiles too big for a thread's stack live in one heap block per program (freed on every exit)."""

from __future__ import annotations

import threading

import numpy as np

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel

N = 1 << 18  # 1 MiB of fp32: several buffers of this would overflow a small thread stack


def _reverse_twice(b, x, out) -> None:
    offs = b.make_range(0, N)
    v = b.load(b.addptr(b.splat(x, (N,)), offs))
    flipped = b.flip(b.math("exp", v), 0)  # exp is materialized, the flip reads it reversed
    again = b.flip(b.binary(O.BinaryKind.ADD, flipped, flipped), 0)
    b.assert_(
        b.compare(O.CompareKind.GE, again, b.constant(0.0, T.TileType((N,), T.float32))), "neg"
    )
    b.store(b.addptr(b.splat(out, (N,)), offs), again)


def test_big_tiles_on_a_small_stack() -> None:
    k = Kernel(kernel([pointer_arg("x", T.float32), pointer_arg("out", T.float32)], _reverse_twice))
    assert "malloc" in k.compiled.asm["llir"] and "free" in k.compiled.asm["llir"]
    x = np.random.default_rng().standard_normal(N).astype(np.float32)
    out = np.full(N, np.nan, np.float32)
    result = {}
    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=lambda: result.setdefault("status", k(3, x, out)))
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert result["status"][0] == 0
    np.testing.assert_allclose(out, 2 * np.exp(x.astype(np.float64)), rtol=1e-6)
