"""Ops that create values from nothing: constants, program ids and ranges."""

from __future__ import annotations

from typing import Any

from ...source import SourceLoc
from ..core import Op
from ..types import ScalarType, TileType, Type, element_of, int32
from ._check import require


class ConstantOp(Op):
    """A scalar constant, or a tile with every element equal to ``value``."""

    name = "constant"

    def __init__(self, value: bool | int | float, type: Type, loc: SourceLoc | None = None):
        super().__init__([], [type], loc)
        self.value = value

    def attributes(self) -> dict[str, Any]:
        return {"value": self.value}

    def verify(self) -> None:
        elem = element_of(self.results[0].type)
        require(self, isinstance(elem, ScalarType), f"constant of non-scalar element {elem}")
        if isinstance(elem, ScalarType) and elem.is_int():
            require(self, isinstance(self.value, (bool, int)), f"integer constant {self.value!r}")


class ProgramIdOp(Op):
    """The index of this program along ``axis`` (0, 1 or 2) of the launch grid, as i32."""

    name = "program_id"

    def __init__(self, axis: int, loc: SourceLoc | None = None):
        super().__init__([], [int32], loc)
        self.axis = axis

    def attributes(self) -> dict[str, Any]:
        return {"axis": self.axis}

    def verify(self) -> None:
        require(self, self.axis in (0, 1, 2), f"axis must be 0, 1 or 2, got {self.axis}")


class NumProgramsOp(ProgramIdOp):
    """The number of programs along ``axis`` of the launch grid, as i32."""

    name = "num_programs"


class MakeRangeOp(Op):
    """``arange(start, end)``: a 1-D i32 tile ``[start, start+1, ..., end-1]``."""

    name = "make_range"

    def __init__(self, start: int, end: int, loc: SourceLoc | None = None):
        super().__init__([], [TileType((end - start,), int32)], loc)
        self.start = start
        self.end = end

    def attributes(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end}

    def verify(self) -> None:
        n = self.end - self.start
        require(self, n > 0 and n & (n - 1) == 0, f"range length {n} is not a power of 2")
