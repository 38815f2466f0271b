"""Layout conversion through shared memory: every thread writes its registers, a barrier, every
thread reads the elements its new layout holds.

The buffer has 4 bytes of padding (8 for 8-byte data) after every 128 bytes: a strided access (a
transpose, a column) then meets a new bank on each 128-byte row instead of the same one; 1- and
2-byte data pad a whole word too, since lanes sharing a word do not clash. Addresses are a
per-thread base plus a constant wherever thread_index.py proves it (the padding does not carry).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from llvmlite import ir

from . import thread_index
from .layout import Layout
from .lowering_state import LoweringState
from .thread_index import Index, Terms
from .tile import Key, Tile
from .types import I8, I32, is_float, type_bytes


def remap(
    L: LoweringState,
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
    nbytes = type_bytes(store_ty)
    shift = (128 // nbytes).bit_length() - 1
    pad = max(1, 4 // nbytes)
    size = total + ((total - 1) >> shift) * pad + pad
    buffer = _Buffer(L, L.smem(size * nbytes), store_ty, shift, pad)
    L.barrier()
    start = 0
    for t in tiles:
        for group in _runs(L, t.layout, t.shape, buffer.max_vector):
            vals = [t.regs[k] for k in group]
            if store_ty is not elem_ty:
                vals = [L.b.zext(v, I8) for v in vals]
            exact = thread_index.coords(t.layout, t.shape, group[0])
            idx = L.linear(exact or L.coord(t.layout, t.shape, group[0]), t.shape)
            if start:
                idx = idx + start if isinstance(idx, Index) else L.b.add(idx, _c(start))
            buffer.write(idx, vals)
        start += _numel(t.shape)
    L.barrier()
    regs = {}
    for group in _runs(L, layout, shape, buffer.max_vector):
        exact = [thread_index.coords(layout, shape, k) for k in group]
        if all(c is not None for c in exact):
            idxs = [source_index(c) for c in exact]  # type: ignore[arg-type]
        else:
            idxs = [source_index(L.coord(layout, shape, k)) for k in group]
        vals = buffer.read(idxs)
        if store_ty is not elem_ty:
            vals = [L.b.trunc(v, elem_ty) for v in vals]
        regs.update(zip(group, vals))
    return Tile(layout, shape, regs)


def _runs(L: LoweringState, layout: Layout, shape: tuple[int, ...], most: int) -> list[list[Key]]:
    """The registers in groups of up to ``most`` (a power of two) that are consecutive along
    the last dimension, which is contiguous in the buffer: one thread's ``spt`` elements."""
    keys = L.keys(layout, shape)
    if not shape:
        return [[k] for k in keys]
    last = len(shape) - 1
    run = layout.dim_maps()[last].spt_in(shape[last])
    width = 1
    while width * 2 <= min(run, most) and run % (width * 2) == 0:
        width *= 2
    return [[(*k[:last], k[last] + j) for j in range(width)] for k in keys if k[last] % width == 0]


@functools.cache
def _padded_alignment(terms: Terms, num_warps: int, warp_size: int, shift: int, pad: int) -> int:
    """The largest power of two (elements, at most 64) dividing the padded thread part of an
    index in every thread."""
    align = 64
    for t in thread_index.thread_values(terms, num_warps, warp_size):
        p = t + pad * (t >> shift)
        if p:
            align = min(align, p & -p)
    return align


class _Buffer:
    """The conversion buffer: ``pad`` elements after every ``2**shift``.

    An Index whose thread part never carries into the padded bits (in any thread) is addressed
    from a per-thread base plus a constant; other indices compute the padding per register.
    Consecutive elements that stay in one padded row and are aligned in every thread move as
    one vector (up to 16 bytes): fewer memory instructions for LLVM to analyse and for the
    GPU to issue."""

    def __init__(
        self, L: LoweringState, base: ir.Value, elem: ir.Type, shift: int, pad: int
    ) -> None:
        self.L, self.base, self.elem, self.shift, self.pad = L, base, elem, shift, pad
        self.bases: dict[Terms, ir.Value] = {}
        self.bytes = type_bytes(elem)
        vectorizable = isinstance(elem, ir.IntType) or is_float(elem)
        self.max_vector = max(1, L.target.vector_bytes // self.bytes) if vectorizable else 1

    def write(self, idx: ir.Value | Index, vals: list[ir.Value]) -> None:
        """Store ``vals`` at buffer elements ``idx``, ``idx + 1``, ..."""
        b, v = self.L.b, self._width(idx, len(vals))
        for j in range(0, len(vals), v):
            at = idx + j if isinstance(idx, Index) else (b.add(idx, _c(j)) if j else idx)
            if v == 1:
                b.store(vals[j], self.address(at))
                continue
            vec = ir.Constant(ir.VectorType(self.elem, v), None)
            for i, x in enumerate(vals[j : j + v]):
                vec = b.insert_element(vec, x, _c(i))
            b.store(vec, self.address(at), align=v * self.bytes)

    def read(self, idxs: list[ir.Value | Index]) -> list[ir.Value]:
        """Load buffer elements ``idxs`` (in vectors where they are consecutive)."""
        b, first = self.L.b, idxs[0]
        consecutive = isinstance(first, Index) and all(
            isinstance(x, Index) and x.terms == first.terms and x.const == first.const + j
            for j, x in enumerate(idxs)
        )
        v = self._width(first, len(idxs)) if consecutive else 1
        if v == 1:
            return [b.load(self.address(x), typ=self.elem) for x in idxs]
        out = []
        for j in range(0, len(idxs), v):
            vec = b.load(
                self.address(idxs[j]), typ=ir.VectorType(self.elem, v), align=v * self.bytes
            )
            out += [b.extract_element(vec, _c(i)) for i in range(v)]
        return out

    def _width(self, idx: ir.Value | Index, n: int) -> int:
        """The widest vector (a power of two dividing ``n``) in which elements ``idx`` ..
        ``idx + n - 1`` can move: every piece contiguous and aligned in every thread."""
        v = n
        while v > 1 and not all(self._vector_ok(idx, j, v) for j in range(0, n, v)):
            v //= 2
        return v

    def _vector_ok(self, idx: ir.Value | Index, offset: int, n: int) -> bool:
        """Whether elements ``idx + offset`` .. ``+ n - 1`` are contiguous and aligned to ``n``
        elements in every thread."""
        if not isinstance(idx, Index) or idx.const < 0:
            return False
        c, mask = idx.const + offset, (1 << self.shift) - 1
        low = thread_index.low_bits_max(idx.terms, *self._block, self.shift)
        if low is None or low + (c & mask) + n - 1 > mask:
            return False  # the vector could cross a padding gap
        align = _padded_alignment(idx.terms, *self._block, self.shift, self.pad)
        return align % n == 0 and self._padded_const(c) % n == 0

    @property
    def _block(self) -> tuple[int, int]:
        """Which threads an Index's thread part runs over: warps, and lanes per warp."""
        return self.L.num_warps, self.L.target.warp_size

    def _padded_const(self, c: int) -> int:
        return c + self.pad * (c >> self.shift)

    def _padded(self, b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        rows = b.lshr(i, _c(self.shift))
        return b.add(i, b.mul(rows, _c(self.pad)) if self.pad > 1 else rows)

    def address(self, idx: ir.Value | Index) -> ir.Value:
        L, b = self.L, self.L.b
        if isinstance(idx, Index) and idx.const >= 0:
            low = thread_index.low_bits_max(idx.terms, *self._block, self.shift)
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
                c = self._padded_const(idx.const)
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
