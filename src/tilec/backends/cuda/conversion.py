"""Layout conversion through shared memory: every thread writes its registers, a barrier, every
thread reads the elements its new layout holds.

The buffer has 4 bytes of padding (8 for 8-byte data) after every 128 bytes: a strided access (a
transpose, a column) then meets a new bank on each 128-byte row instead of the same one; 1- and
2-byte data pad a whole word too, since lanes sharing a word do not clash. Addresses are a
per-thread base plus a constant wherever thread_index.py proves it (the padding does not carry).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir

from . import thread_index
from .layout import Layout
from .thread_index import Index, Terms
from .tile import Tile
from .types import I8, I32

if TYPE_CHECKING:
    from .lowering import Lowering  # the caller: annotations only


def remap(
    L: Lowering,
    tiles: list[Tile],
    layout: Layout,
    shape: tuple[int, ...],
    source_index: Callable[[list], ir.Value | Index],  # type: ignore[type-arg]
) -> Tile:
    """``tiles`` written one after the other (row-major each); the element at coordinates ``c``
    of the result (in ``shape`` and ``layout``) reads buffer element ``source_index(c)``, where
    ``c`` are Indices when exact (thread_index.coords), else i32 values."""
    elem_ty = next(iter(tiles[0].regs.values())).type
    store_ty = I8 if elem_ty == ir.IntType(1) else elem_ty
    total = sum(_numel(t.shape) for t in tiles)
    nbytes = _type_bytes(store_ty)
    shift = (128 // nbytes).bit_length() - 1
    pad = max(1, 4 // nbytes)
    size = total + ((total - 1) >> shift) * pad + pad
    base = L.smem(size * nbytes)
    padding = _Padding(L, base, store_ty, shift, pad)
    L.barrier()
    start = 0
    for t in tiles:
        for key, reg in t.regs.items():
            exact = thread_index.coords(t.layout, t.shape, key)
            idx = L.linear(exact or L.coord(t.layout, t.shape, key), t.shape)
            if start:
                idx = idx + start if isinstance(idx, Index) else L.b.add(idx, _c(start))
            val = L.b.zext(reg, I8) if store_ty is not elem_ty else reg
            L.b.store(val, padding.address(idx))
        start += _numel(t.shape)
    L.barrier()
    regs = {}
    for key in L.keys(layout, shape):
        exact = thread_index.coords(layout, shape, key)
        coords = exact if exact is not None else L.coord(layout, shape, key)
        ptr = padding.address(source_index(coords))  # type: ignore[arg-type]
        val = L.b.load(ptr, typ=store_ty)
        regs[key] = L.b.trunc(val, elem_ty) if store_ty is not elem_ty else val
    return Tile(layout, shape, regs)


class _Padding:
    """Addresses in a conversion buffer that has ``pad`` elements after every ``2**shift``.

    An Index whose thread part never carries into the padded bits (in any thread) is addressed
    from a per-thread base plus a constant; other indices compute the padding per register."""

    def __init__(self, L: Lowering, base: ir.Value, elem: ir.Type, shift: int, pad: int) -> None:
        self.L, self.base, self.elem, self.shift, self.pad = L, base, elem, shift, pad
        self.bases: dict[Terms, ir.Value] = {}

    def _padded(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        rows = b.lshr(i, _c(self.shift))
        return b.add(i, b.mul(rows, _c(self.pad)) if self.pad > 1 else rows)

    def address(self, idx: ir.Value | Index) -> ir.Value:
        L, b = self.L, self.L.b
        if isinstance(idx, Index) and idx.const >= 0:
            low = thread_index.low_bits_max(idx.terms, L.num_warps, self.shift)
            if low is not None and low + (idx.const & ((1 << self.shift) - 1)) < 1 << self.shift:
                start = self.bases.get(idx.terms)
                if start is None:
                    t = L.terms_value(idx.terms)
                    start = (
                        b.gep(self.base, [self._padded(L.prologue, t)], source_etype=self.elem)
                        if t is not None
                        else self.base
                    )
                    self.bases[idx.terms] = start
                c = idx.const + self.pad * (idx.const >> self.shift)
                return b.gep(start, [_c(c)], source_etype=self.elem) if c else start
        if isinstance(idx, Index):
            idx = L.index_value(idx)
        return b.gep(self.base, [self._padded(b, idx)], source_etype=self.elem)


def _c(v: int) -> ir.Constant:
    return ir.Constant(I32, v)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _type_bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    if isinstance(t, ir.PointerType):
        return 8
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]
