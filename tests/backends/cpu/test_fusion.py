"""Fusion and vectorization: elementwise chains become one loop with no stack buffers, loads
through contiguous pointers are plain vector loads, and transcendental math stays inline."""

from __future__ import annotations

import re

from tilec.backends.cpu.program import build_module
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg

from .support import Kernel, kernel

BLOCK = 1024


def _chain(b, x, y, out, n) -> None:
    start = b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(BLOCK, T.int32))
    offs = b.binary(O.BinaryKind.ADD, b.splat(start, (BLOCK,)), b.make_range(0, BLOCK))
    mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (BLOCK,)))
    xv = b.load(b.addptr(b.splat(x, (BLOCK,)), offs), mask)
    yv = b.load(b.addptr(b.splat(y, (BLOCK,)), offs), mask)
    e = b.math("exp", b.binary(O.BinaryKind.MUL, xv, yv))
    r = b.select(b.compare(O.CompareKind.GT, e, yv), b.math("log", e), b.math("tanh", xv))
    b.store(b.addptr(b.splat(out, (BLOCK,)), offs), r, mask)


SPECS = [
    pointer_arg("x", T.float32),
    pointer_arg("y", T.float32),
    pointer_arg("out", T.float32),
    scalar_arg("n", T.int32),
]


def test_chain_is_one_loop_without_buffers() -> None:
    module = kernel(SPECS, _chain)
    llmod, _, _ = build_module(module.functions[0], "x86_64-unknown-linux-gnu")
    text = str(llmod.get_global("tilec.program"))
    assert "= alloca" not in text  # nothing materialized between the loads and the store
    assert not re.search(r"call .*@(expf|logf|tanhf)\b", text)


def test_chain_vectorizes_with_plain_loads() -> None:
    llir = Kernel(kernel(SPECS, _chain)).compiled.asm["llir"]
    assert re.search(r"load <(8|16) x float>", llir), "contiguous loads should be vector loads"
    assert re.search(r"store <(8|16) x float>", llir)
    assert "gather" not in llir and "@expf" not in llir
