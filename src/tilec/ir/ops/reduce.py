"""Reductions and scans with a user combine function held in a region.

The combine region has one block with 2N scalar arguments (N accumulators, then N new values)
and ends in a YieldOp of N scalars. Several operands reduce together (argmax reduces values and
indices at once). A reduction over every element of a rank-1 tile gives scalars.
"""

from __future__ import annotations

from typing import Any

from ...source import SourceLoc
from ..core import Block, Op, Region, Value
from ..types import element_of, shape_of, with_shape
from ._check import require, same_shape


def combine_region(operands: list[Value]) -> Region:
    elems = [element_of(v.type) for v in operands]
    return Region([Block(elems + elems)])


class ReduceOp(Op):
    """Reduce ``operands`` along ``axis`` with the combine region (axis removed from the shape)."""

    name = "reduce"

    def __init__(self, operands: list[Value], axis: int, loc: SourceLoc | None = None):
        results = []
        for v in operands:
            shape = list(shape_of(v.type))
            del shape[axis]
            results.append(with_shape(element_of(v.type), tuple(shape)))
        super().__init__(operands, results, loc, [combine_region(operands)])
        self.axis = axis

    @property
    def combine(self) -> Block:
        return self.regions[0].entry

    def attributes(self) -> dict[str, Any]:
        return {"axis": self.axis}

    def verify(self) -> None:
        same_shape(self, *self.operands)
        rank = len(shape_of(self.operands[0].type))
        require(self, 0 <= self.axis < rank, f"axis {self.axis} out of range for rank {rank}")
        term = self.combine.terminator
        require(
            self,
            term is not None and len(term.operands) == len(self.operands),
            "combine region must yield one value per operand",
        )


class ScanOp(Op):
    """Inclusive scan of ``operands`` along ``axis`` (reversed when ``reverse``); shape kept."""

    name = "scan"

    def __init__(
        self, operands: list[Value], axis: int, reverse: bool = False, loc: SourceLoc | None = None
    ):
        super().__init__(operands, [v.type for v in operands], loc, [combine_region(operands)])
        self.axis = axis
        self.reverse = reverse

    @property
    def combine(self) -> Block:
        return self.regions[0].entry

    def attributes(self) -> dict[str, Any]:
        return {"axis": self.axis, **({"reverse": True} if self.reverse else {})}

    def verify(self) -> None:
        same_shape(self, *self.operands)
        rank = len(shape_of(self.operands[0].type))
        require(self, 0 <= self.axis < rank, f"axis {self.axis} out of range for rank {rank}")
