"""Ops that rearrange tiles without computing: splat, broadcast, reshape, transpose, join..."""

from __future__ import annotations

from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import TileType, Type, element_of, shape_of, with_shape
from ._check import require, same_type


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class SplatOp(Op):
    """A scalar copied into every element of a tile of ``shape``."""

    name = "splat"

    def __init__(self, value: Value, shape: tuple[int, ...], loc: SourceLoc | None = None):
        super().__init__([value], [TileType(tuple(shape), element_of(value.type))], loc)

    def verify(self) -> None:
        require(self, not isinstance(self.operands[0].type, TileType), "splat of a tile")


class BroadcastOp(Op):
    """Expand dimensions of size 1 to ``shape`` (same rank)."""

    name = "broadcast"

    def __init__(self, value: Value, shape: tuple[int, ...], loc: SourceLoc | None = None):
        super().__init__([value], [TileType(tuple(shape), element_of(value.type))], loc)

    def attributes(self) -> dict[str, Any]:
        return {"shape": shape_of(self.results[0].type)}

    def verify(self) -> None:
        src, dst = shape_of(self.operands[0].type), shape_of(self.results[0].type)
        require(self, len(src) == len(dst), f"broadcast {src} → {dst} changes rank")
        require(self, all(s in (1, d) for s, d in zip(src, dst)), f"cannot broadcast {src} → {dst}")


class ExpandDimsOp(Op):
    """Insert a dimension of size 1 at ``axis``."""

    name = "expand_dims"

    def __init__(self, value: Value, axis: int, loc: SourceLoc | None = None):
        shape = list(shape_of(value.type))
        shape.insert(axis, 1)
        super().__init__([value], [TileType(tuple(shape), element_of(value.type))], loc)
        self.axis = axis

    def attributes(self) -> dict[str, Any]:
        return {"axis": self.axis}


class ReshapeOp(Op):
    """Reinterpret a tile's elements (row-major order) in a new shape of equal size.

    ``can_reorder`` lets a backend pick any element order (Triton's ``view``)."""

    name = "reshape"

    def __init__(
        self,
        value: Value,
        shape: tuple[int, ...],
        loc: SourceLoc | None = None,
        can_reorder: bool = False,
    ):
        super().__init__([value], [with_shape(element_of(value.type), tuple(shape))], loc)
        self.can_reorder = can_reorder

    def attributes(self) -> dict[str, Any]:
        return {
            "shape": shape_of(self.results[0].type),
            **({"can_reorder": True} if self.can_reorder else {}),
        }

    def verify(self) -> None:
        src, dst = shape_of(self.operands[0].type), shape_of(self.results[0].type)
        require(
            self, _numel(src) == _numel(dst), f"reshape {src} → {dst} changes the element count"
        )


class TransOp(Op):
    """Permute dimensions: result dim i is source dim ``perm[i]``."""

    name = "trans"

    def __init__(self, value: Value, perm: tuple[int, ...], loc: SourceLoc | None = None):
        src = shape_of(value.type)
        super().__init__(
            [value], [TileType(tuple(src[p] for p in perm), element_of(value.type))], loc
        )
        self.perm = tuple(perm)

    def attributes(self) -> dict[str, Any]:
        return {"perm": self.perm}

    def verify(self) -> None:
        require(
            self,
            sorted(self.perm) == list(range(len(shape_of(self.operands[0].type)))),
            f"bad permutation {self.perm}",
        )


class JoinOp(Op):
    """Stack two tiles of equal type along a new minor dimension of size 2."""

    name = "join"

    def __init__(self, a: Value, b: Value, loc: SourceLoc | None = None):
        super().__init__([a, b], [TileType((*shape_of(a.type), 2), element_of(a.type))], loc)

    def verify(self) -> None:
        same_type(self, *self.operands)


class SplitOp(Op):
    """The inverse of join: split the minor dimension (of size 2) into two tiles."""

    name = "split"

    def __init__(self, value: Value, loc: SourceLoc | None = None):
        shape = shape_of(value.type)[:-1]
        t: Type = with_shape(element_of(value.type), shape)
        super().__init__([value], [t, t], loc)

    def verify(self) -> None:
        shape = shape_of(self.operands[0].type)
        require(
            self, bool(shape) and shape[-1] == 2, f"split needs a minor dimension of 2, got {shape}"
        )


class CatOp(Op):
    """Concatenate two tiles of equal type along dimension 0."""

    name = "cat"

    def __init__(self, a: Value, b: Value, loc: SourceLoc | None = None):
        sa, sb = shape_of(a.type), shape_of(b.type)
        super().__init__([a, b], [TileType((sa[0] + sb[0], *sa[1:]), element_of(a.type))], loc)

    def verify(self) -> None:
        same_type(self, *self.operands)


class FlipOp(Op):
    """Reverse a tile along ``axis``."""

    name = "flip"

    def __init__(self, value: Value, axis: int, loc: SourceLoc | None = None):
        super().__init__([value], [value.type], loc)
        self.axis = axis

    def attributes(self) -> dict[str, Any]:
        return {"axis": self.axis}

    def verify(self) -> None:
        require(
            self, 0 <= self.axis < len(shape_of(self.operands[0].type)), f"bad axis {self.axis}"
        )
