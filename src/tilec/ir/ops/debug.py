"""Run-time debugging: device_print and device_assert."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ._check import is_bool, require


class PrintOp(Op):
    """Print ``prefix`` and each value (every element of tiles) from every program."""

    name = "print"
    has_side_effects = True

    def __init__(
        self, prefix: str, values: Sequence[Value], loc: SourceLoc | None = None, hex: bool = False
    ):
        super().__init__(list(values), [], loc)
        self.prefix = prefix
        self.hex = hex

    def attributes(self) -> dict[str, Any]:
        return {"prefix": self.prefix, **({"hex": True} if self.hex else {})}


class AssertOp(Op):
    """Fail the launch with ``message`` (and the source location) where ``cond`` is false."""

    name = "assert"
    has_side_effects = True

    def __init__(self, cond: Value, message: str, loc: SourceLoc | None = None):
        super().__init__([cond], [], loc)
        self.message = message

    def attributes(self) -> dict[str, Any]:
        return {"message": self.message}

    def verify(self) -> None:
        require(self, is_bool(self.operands[0].type), "assert condition must be i1")
