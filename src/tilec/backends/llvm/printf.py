"""device_print's lines, Triton's, for every backend: the format of a line and how one value is
passed to printf (C's default argument promotion).

A line reads ``pid (x, y, z) idx (i, j)<prefix><value>`` (each index padded to its dimension's
width, ``idx ()`` for a scalar, ``(operand k) `` before the value when several print). A value
is printed as Triton prints it (``conversion``): floats passed as double, integers narrower than
int extended by their signedness, in hex the bits zero-padded to the type's width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from llvmlite import ir

from ...ir.types import Element, PointerType, ScalarType
from . import types as T


class Promote(Enum):
    """How one value is passed to printf (C's default argument promotion)."""

    DOUBLE = "double"  # a float, widened to double
    SIGNED = "signed"  # an integer, sign-extended to int when narrower
    UNSIGNED = "unsigned"  # an integer or bool, zero-extended to int when narrower
    BITS = "bits"  # a float's bits as an unsigned integer (hex)
    POINTER = "pointer"  # a pointer, in the address space printf takes


@dataclass(frozen=True)
class Conversion:
    """The printf conversion of one value and how the value is passed."""

    text: str
    promote: Promote


def conversion(elem: Element, hex_: bool) -> Conversion:
    """Triton's printf conversion of a value of type ``elem``: ``%p`` for a pointer; in hex
    ``0x%0<n>x`` (``llx`` above 32 bits) with n the type's hex digits, of an integer or of a
    float's bits; else ``%f``, ``%i``/``%lli`` or ``%u``/``%llu``. Integers narrower than int
    are extended by their signedness, in hex too (int8 -1 prints 0xffffffff, as in C)."""
    if isinstance(elem, PointerType):
        return Conversion("%p", Promote.POINTER)
    assert isinstance(elem, ScalarType)
    signed = elem.is_int_signed()
    how = Promote.SIGNED if signed else Promote.UNSIGNED
    if hex_:
        text = f"0x%0{max(elem.bits // 4, 1)}" + ("llx" if elem.bits > 32 else "x")
        return Conversion(text, Promote.BITS if elem.is_floating() else how)
    if elem.is_floating():
        return Conversion("%f", Promote.DOUBLE)
    if elem.bits == 64:
        return Conversion("%lli" if signed else "%llu", how)
    return Conversion("%i" if signed else "%u", how)


def promote(b: ir.IRBuilder, x: ir.Value, how: Promote, pointer: ir.PointerType) -> ir.Value:
    """``x`` as printf takes it. Floats are native LLVM floats here (a backend that holds
    them otherwise converts them first); ``pointer`` is the pointer type printf takes."""
    if how is Promote.POINTER:
        return x if x.type == pointer else b.addrspacecast(x, pointer)
    if how is Promote.DOUBLE:
        return x if x.type == T.f64 else b.fpext(x, T.f64)
    if how is Promote.BITS:
        x = b.bitcast(x, ir.IntType(T.bit_width(x.type)))
    if x.type.width >= 32:
        return x
    return b.sext(x, T.i32) if how is Promote.SIGNED else b.zext(x, T.i32)


def line(prefix: str, shape: tuple[int, ...] | None, value: str = "", operand: int = -1) -> str:
    """The format of one line: ``shape`` None for a print without values; ``operand`` >= 0
    when the print has several."""
    head = "pid (%u, %u, %u)"
    if shape is None:
        return f"{head}{prefix}\n"
    which = f"(operand {operand}) " if operand >= 0 else ""
    return f"{head} idx ({_index(shape)}){prefix}{which}{value}\n"


def _index(shape: tuple[int, ...]) -> str:
    widths = [math.ceil(math.log10(d)) if d > 0 else 0 for d in shape]
    return ", ".join(f"%{w}u" if w else "%u" for w in widths)
