"""Compiler hints: facts the user promises about values (divisibility, contiguity, assumptions).

Hints never change values; a backend may use them to vectorize and may ignore them."""

from __future__ import annotations

from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ._check import is_bool, require


class HintOp(Op):
    """``value`` unchanged, annotated with per-dimension ``multiple_of`` / ``max_contiguous`` /
    ``max_constancy`` facts (empty tuples when not given)."""

    name = "hint"

    def __init__(
        self,
        value: Value,
        loc: SourceLoc | None = None,
        multiple_of: tuple[int, ...] = (),
        max_contiguous: tuple[int, ...] = (),
        max_constancy: tuple[int, ...] = (),
    ):
        super().__init__([value], [value.type], loc)
        self.multiple_of = multiple_of
        self.max_contiguous = max_contiguous
        self.max_constancy = max_constancy

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        for key in ("multiple_of", "max_contiguous", "max_constancy"):
            if getattr(self, key):
                attrs[key] = getattr(self, key)
        return attrs


class AssumeOp(Op):
    """``tl.assume(cond)``: the compiler may assume the scalar ``cond`` holds."""

    name = "assume"
    has_side_effects = True

    def __init__(self, cond: Value, loc: SourceLoc | None = None):
        super().__init__([cond], [], loc)

    def verify(self) -> None:
        require(self, is_bool(self.operands[0].type), "assume needs an i1")
