"""Which axis of a tile a loop nest runs innermost.

The last axis, unless the memory the nest touches is laid out along another one: Inductor's
column reductions use ``[XBLOCK, RBLOCK]`` tiles whose first axis is the unit-stride one in
memory (and the second a run-time row stride). Running the first axis innermost turns a gather
per element into consecutive loads the loop vectorizer widens. The choice only orders the loops
(and lays out the buffers they write): every element is computed as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .load_tile import LoadTile
from .tiles import BufferTile, MapTile, Tile, ViewTile

# what one access costs per element (a memory tile's stream against a buffer in L1), and what
# its stride along the loop costs: none for a constant or a unit step, a strided vector access
# for a known step, a gather or scatter for an unknown one
MEMORY_WEIGHT = 4
BUFFER_WEIGHT = 1
_STRIDED, _UNKNOWN = 1, 2

# an axis this short is not worth running innermost (LLVM fully unrolls it)
MIN_INNER = 8


def _step_cost(stride: int | None) -> int:
    if stride is None:
        return _UNKNOWN
    return 0 if stride in (0, 1, -1) else _STRIDED


def _accesses(tile: Tile, axis: int) -> Iterator[tuple[int, int | None]]:
    """(weight, stride along ``axis``) of each memory access in the fused expression of
    ``tile``: loads through pointer tiles and reads of buffers. Views pass the axis on to their
    source where they know which axis it is (below others every stride is unknown); other
    tiles (joins, concatenations) are left out, costing every axis alike."""
    stack: list[tuple[Tile, int | None]] = [(tile, axis)]
    seen: set[tuple[int, int | None]] = set()
    while stack:
        t, a = stack.pop()
        if (id(t), a) in seen:
            continue
        seen.add((id(t), a))
        if isinstance(t, LoadTile):
            yield MEMORY_WEIGHT, None if a is None else t.ptr.stride_on(a)
            stack.extend((c, a) for c in t.children() if c.has_load)
        elif isinstance(t, BufferTile):
            yield BUFFER_WEIGHT, None if a is None else t.memory_stride(a)
        elif isinstance(t, MapTile):
            stack.extend((c, a) for c in t.operands)
        elif isinstance(t, ViewTile) and (a is None or t.stride_on(a) != 0):
            stack.append((t.src, None if a is None else t.source_axis(a)))


def inner_axis(
    shape: Sequence[int],
    roots: Sequence[Tile],
    pointers: Sequence[Tile] = (),
    out: BufferTile | None = None,
) -> int:
    """The axis for the innermost loop of a nest over ``shape`` that reads ``roots`` (and
    stores through ``pointers`` or into ``out``): the last one unless another costs less."""
    last = len(shape) - 1
    if last < 1:
        return last

    def cost(axis: int) -> int:
        total = sum(w * _step_cost(st) for r in roots for w, st in _accesses(r, axis))
        total += sum(MEMORY_WEIGHT * _step_cost(p.stride_on(axis)) for p in pointers)
        if out is not None:
            total += BUFFER_WEIGHT * _step_cost(out.memory_stride(axis))
        return total

    best, best_cost = last, cost(last)
    if best_cost == 0:
        return last
    for axis in range(last):
        if shape[axis] < MIN_INNER:
            continue
        c = cost(axis)
        if c < best_cost:
            best, best_cost = axis, c
    return best
