"""Pointers to constant data: kernel parameters annotated ``tl.const``, as in Triton.

Storing through such a pointer (or one computed from it) is a compile error, and a name, a
return value or a conditional expression that is a const pointer on one path and a mutable one
on the other is a type mismatch, as Triton's const pointer types make it. The IR's pointer type
carries no const flag, and needs none to generate code: the frontend records the const values
it binds or merges (``Unit.const_pointers``) and follows a pointer back through the ops that
only move or offset it to find whether it is one of them.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import ops as O
from ..ir.core import Value
from .values import BlockPointer, Tensor, TensorDescriptor, unwrap
from .visitor import Unit

# ops whose first operand is the pointer their result offsets, moves or reshapes
_DERIVED = (
    O.AddPtrOp, O.SplatOp, O.BroadcastOp, O.ExpandDimsOp, O.ReshapeOp, O.TransOp, O.FlipOp,
)  # fmt: skip


class const:
    """``tl.const``: the annotation of a kernel parameter pointing to data the kernel only
    reads."""


def is_const_annotation(annotation: Any) -> bool:
    if annotation is const:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "const"


def _is_const_value(unit: Unit, v: Value) -> bool:
    while v not in unit.const_pointers:
        op = v.defining_op
        if isinstance(op, O.SelectOp):  # tl.where over pointers: const if either is
            return any(_is_const_value(unit, x) for x in op.operands[1:])
        if not isinstance(op, _DERIVED):
            return False
        v = op.operands[0]
    return True


def is_const(unit: Unit, x: Any) -> bool:
    """True when ``x`` (a Tensor, block pointer or descriptor) points to constant data."""
    if not unit.const_pointers:  # the common case: a kernel without tl.const parameters
        return False
    x = unwrap(x)
    if isinstance(x, (BlockPointer, TensorDescriptor)):
        x = x.base
    return isinstance(x, Tensor) and _is_const_value(unit, x.value)


def mark(unit: Unit, x: Tensor) -> None:
    unit.const_pointers.add(x.value)


def check_writable(unit: Unit, pointer: Any) -> None:
    if is_const(unit, pointer):
        raise TileTypeError("Cannot store to a constant pointer (a parameter marked tl.const)")


def mismatch(name: str) -> str:
    """The start of the error for ``name`` const on one path and mutable on the other, in
    Triton's words."""
    if name == "$return":  # codegen.RETURN, the slot a function's return value is merged in
        return "Return type mismatch: "
    if name == "$ifexp":
        return "Ternary expression with dynamic condition has inconsistent type: "
    return f"Mismatched type for {name}: "


def check_same(unit: Unit, name: str, a: Tensor, c: Tensor) -> None:
    ca, cc = is_const(unit, a), is_const(unit, c)
    if ca != cc:
        kinds = ("a pointer to constant data", "a pointer to mutable data")
        first, second = kinds if ca else kinds[::-1]
        raise TileTypeError(f"{mismatch(name)}{first} on one path and {second} on the other")
