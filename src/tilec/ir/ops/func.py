"""Functions and modules: a kernel is a FuncOp whose body block's arguments are its parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...source import SourceLoc
from ..argspec import ArgSpec
from ..core import Block, Op, Region, Value
from ._check import require


class ReturnOp(Op):
    """Ends a function (kernels return nothing)."""

    name = "return"
    is_terminator = True

    def __init__(self, values: Sequence[Value] = (), loc: SourceLoc | None = None):
        super().__init__(list(values), [], loc)


class FuncOp(Op):
    """A kernel: its name, its runtime parameters (one ArgSpec each) and a body.

    Constexpr parameters are folded in by the frontend and are not block arguments; ``specs``
    lists only the runtime parameters, in order, with their specialization facts."""

    name = "func"

    def __init__(self, sym_name: str, specs: Sequence[ArgSpec], loc: SourceLoc | None = None):
        types = [s.type for s in specs if s.type is not None]
        if len(types) != len(specs):
            raise ValueError("every runtime parameter of a FuncOp needs a type")
        body = Block(types, [s.name for s in specs])
        super().__init__([], [], loc, [Region([body])])
        self.sym_name = sym_name
        self.specs = tuple(specs)

    @property
    def body(self) -> Block:
        return self.regions[0].entry

    @property
    def args(self) -> list[Value]:
        return self.body.args

    def attributes(self) -> dict[str, Any]:
        return {"sym_name": self.sym_name}

    def verify(self) -> None:
        term = self.body.terminator
        require(self, isinstance(term, ReturnOp), "function body must end in return")


class ModuleOp(Op):
    """A compilation unit holding one or more FuncOps."""

    name = "module"

    def __init__(self, loc: SourceLoc | None = None):
        super().__init__([], [], loc, [Region([Block()])])

    @property
    def body(self) -> Block:
        return self.regions[0].entry

    @property
    def functions(self) -> list[FuncOp]:
        return [op for op in self.body.ops if isinstance(op, FuncOp)]

    def function(self, name: str) -> FuncOp:
        for f in self.functions:
            if f.sym_name == name:
                return f
        raise KeyError(name)
