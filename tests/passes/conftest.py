"""Helpers to build small functions for pass tests."""

from __future__ import annotations

import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg
from tilec.ir.builder import Builder
from tilec.ir.types import shape_of


class Kernel:
    def __init__(self) -> None:
        self.module = O.ModuleOp()
        self.func = O.FuncOp("k", [pointer_arg("out", T.int32), scalar_arg("n", T.int32)])
        self.module.body.append(self.func)
        self.b = Builder(self.func.body)
        self.out, self.n = self.func.args

    def store(self, value):
        """Store a scalar at out[0] or a 1-D tile at out[0:n]."""
        ptr = self.out
        shape = shape_of(value.type)
        assert len(shape) <= 1, "the helper stores scalars and 1-D tiles"
        if shape:
            ptr = self.b.addptr(self.b.splat(ptr, shape), self.b.make_range(0, shape[0]))
        self.b.store(ptr, value)

    def finish(self) -> O.ModuleOp:
        self.b.ret()
        return self.module

    def ops(self) -> list[str]:
        return [op.name for op in self.func.body.ops]


@pytest.fixture
def kernel() -> Kernel:
    return Kernel()
