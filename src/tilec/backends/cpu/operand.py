"""Where the matmul kernel reads a dot operand: a packed stack buffer, or memory in place.

A dot operand that is still a lazy load with a known stride along its rows (``a_ptr + rm*sam +
rk`` and the like) need not be copied: when its mask holds on the whole tile (checked once, at
run time) the kernel reads each row where it lies. Only the check and a row's first address are
computed; the copy, and its cache misses, move into the multiply loop where they overlap.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir.types import Element
from ..llvm import types as T
from .lower import Lowering
from .nest import counted_loop, range_form, row_limit
from .tiles import BufferTile, Scope, Tile, storage


class Operand:
    """Rows of a 2-D operand: ``row(b, i)`` points at element (i, 0); a row advances by
    ``step`` elements per column."""

    shape: tuple[int, ...]
    elem: Element
    step: int

    def row(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        raise NotImplementedError


class Packed(Operand):
    """A row-major buffer (contiguous rows)."""

    def __init__(self, buf: BufferTile):
        self.buf, self.shape, self.elem, self.step = buf, buf.shape, buf.elem, 1

    def row(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        lin = b.mul(i, ir.Constant(T.i64, self.shape[-1]))
        return b.gep(self.buf.addr, [lin], source_etype=storage(self.elem))


class InPlace(Operand):
    """A 2-D load read where it lies: ``ptr`` (the load's pointer tile, ``step`` elements apart
    along rows) and its range ``mask``; valid where :func:`in_bounds` holds."""

    def __init__(self, ptr: Tile, mask: Tile | None, elem: Element, step: int):
        self.ptr, self.mask, self.shape, self.elem, self.step = ptr, mask, ptr.shape, elem, step

    def row(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        s = Scope(b)
        return s.get(self.ptr, (i, s.zero))


def in_place(ptr: Tile, mask: Tile | None, elem: Element) -> InPlace | None:
    """A load through ``ptr`` as an in-place operand, when it can be one: 2-D, a known nonzero
    stride along rows, and no mask or a range mask (rows checkable without reading memory)."""
    step = ptr.stride()
    if len(ptr.shape) != 2 or not step:
        return None
    if mask is not None and range_form(mask) is None:
        return None
    return InPlace(ptr, mask, elem, step)


def in_bounds(lw: Lowering, operands: list[InPlace]) -> ir.Value:
    """i1: every operand's mask holds on its whole tile (one pass over the rows' limits)."""
    b = lw.b
    ok: ir.Value = ir.Constant(T.i1, 1)
    for op in operands:
        if op.mask is None:
            continue
        form = range_form(op.mask)
        assert form is not None
        rows, n = op.shape
        slot = lw.slot(T.i1)
        b.store(ir.Constant(T.i1, 1), slot)
        with counted_loop(b, ir.Constant(T.i64, 0), ir.Constant(T.i64, rows), "inb") as i:
            lim = row_limit(Scope(b), form, (i,), n)
            full = b.icmp_unsigned("==", lim, ir.Constant(T.i64, n))
            b.store(b.and_(b.load(slot, typ=T.i1), full), slot)
        ok = b.and_(ok, b.load(slot, typ=T.i1))
    return ok
