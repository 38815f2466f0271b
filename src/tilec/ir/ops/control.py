"""Structured control flow: if, for and while with regions that yield values.

Values that change in a loop are ``iter_args``: block arguments of the body, initialised from
the op's operands and replaced by the body's YieldOp each iteration; the op's results are their
final values. An IfOp's regions each yield the op's results (or nothing when it has none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...source import SourceLoc
from ..core import Block, Op, Region, Value
from ..types import Type, shape_of
from ._check import is_bool, require


class YieldOp(Op):
    """Terminates a region, passing values to the enclosing op."""

    name = "yield"
    is_terminator = True

    def __init__(self, values: Sequence[Value], loc: SourceLoc | None = None):
        super().__init__(list(values), [], loc)


class ConditionOp(Op):
    """Terminates a while's ``before`` region: continue while ``cond``, forwarding ``values``."""

    name = "condition"
    is_terminator = True

    def __init__(self, cond: Value, values: Sequence[Value], loc: SourceLoc | None = None):
        super().__init__([cond, *values], [], loc)

    def verify(self) -> None:
        require(
            self,
            is_bool(self.operands[0].type) and not shape_of(self.operands[0].type),
            "while condition must be a scalar i1",
        )


class IfOp(Op):
    """``if cond: then_region else: else_region``; both yield ``result_types``."""

    name = "if"

    def __init__(self, cond: Value, result_types: Sequence[Type], loc: SourceLoc | None = None):
        super().__init__([cond], list(result_types), loc, [Region([Block()]), Region([Block()])])

    @property
    def then_block(self) -> Block:
        return self.regions[0].entry

    @property
    def else_block(self) -> Block:
        return self.regions[1].entry

    def verify(self) -> None:
        require(
            self,
            is_bool(self.operands[0].type) and not shape_of(self.operands[0].type),
            "if condition must be a scalar i1",
        )
        want = [r.type for r in self.results]
        for block in (self.then_block, self.else_block):
            term = block.terminator
            got = [v.type for v in term.operands] if term is not None else []
            require(
                self,
                got == want,
                f"branch yields {list(map(str, got))}, expected {list(map(str, want))}",
            )


class ForOp(Op):
    """``for iv in range(lb, ub, step)`` carrying ``init`` values through the body.

    The body block's arguments are ``(iv, *iter_args)``. Attributes mirror ``tl.range``."""

    name = "for"

    def __init__(
        self,
        lb: Value,
        ub: Value,
        step: Value,
        init: Sequence[Value],
        loc: SourceLoc | None = None,
        num_stages: int | None = None,
        loop_unroll_factor: int | None = None,
        flatten: bool = False,
        warp_specialize: bool = False,
    ):
        body = Block([lb.type] + [v.type for v in init])
        super().__init__([lb, ub, step, *init], [v.type for v in init], loc, [Region([body])])
        self.num_stages = num_stages
        self.loop_unroll_factor = loop_unroll_factor
        self.flatten = flatten
        self.warp_specialize = warp_specialize

    @property
    def body(self) -> Block:
        return self.regions[0].entry

    @property
    def induction_var(self) -> Value:
        return self.body.args[0]

    @property
    def init_args(self) -> list[Value]:
        return self.operands[3:]

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        for key in ("num_stages", "loop_unroll_factor"):
            if getattr(self, key) is not None:
                attrs[key] = getattr(self, key)
        if self.flatten:
            attrs["flatten"] = True
        if self.warp_specialize:
            attrs["warp_specialize"] = True
        return attrs

    def verify(self) -> None:
        lb, ub, step = self.operands[:3]
        require(
            self,
            lb.type == ub.type == step.type and not shape_of(lb.type),
            "loop bounds must be scalars of one integer type",
        )
        term = self.body.terminator
        got = [v.type for v in term.operands] if term is not None else []
        require(self, got == [r.type for r in self.results], "loop body yields the wrong types")


class WhileOp(Op):
    """``while``: the ``before`` region computes the condition (ConditionOp), ``after`` the body.

    Both regions take the loop-carried values as block arguments; ``after`` yields new ones."""

    name = "while"

    def __init__(self, init: Sequence[Value], loc: SourceLoc | None = None):
        types = [v.type for v in init]
        super().__init__(list(init), types, loc, [Region([Block(types)]), Region([Block(types)])])

    @property
    def before(self) -> Block:
        return self.regions[0].entry

    @property
    def after(self) -> Block:
        return self.regions[1].entry
