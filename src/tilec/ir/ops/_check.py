"""Small assertions shared by the ops' ``verify`` methods."""

from __future__ import annotations

from ...errors import LoweringError
from ..core import Op, Value
from ..types import Type, element_of, shape_of


class VerificationError(LoweringError):
    """The IR breaks an op's typing rule: a tilec bug, never a user error."""


def fail(op: Op, message: str) -> None:
    raise VerificationError(f"{op.name}: {message}", op.loc)


def require(op: Op, cond: bool, message: str) -> None:
    if not cond:
        fail(op, message)


def same_shape(op: Op, *values: Value) -> None:
    shapes = {shape_of(v.type) for v in values}
    require(op, len(shapes) <= 1, f"operand shapes differ: {sorted(shapes)}")


def same_type(op: Op, *values: Value) -> None:
    types = {v.type for v in values}
    require(op, len(types) <= 1, f"operand types differ: {', '.join(sorted(map(str, types)))}")


def is_bool(t: Type) -> bool:
    return str(element_of(t)) == "i1"
