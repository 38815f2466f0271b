"""Pointer registers inside a run of contiguous addresses, rewritten as the run's first pointer
plus a compile-time offset.

Axis analysis knows when a pointer tile holds runs of consecutive addresses (``x + offs`` with
``offs = pid * BLOCK + arange``). A thread's registers in one run then differ by constants, but
each was computed as ``gep(x, sext(i32 offset))`` and LLVM cannot see that: NVPTX's straight-line
strength reduction compares every such pointer with every earlier one (quadratic: 12 s of codegen
for a vector add of 128 elements per thread). ``gep(first, constant)`` is foldable into the
addressing mode, so the pass skips it and ptxas gets ``[%rd + 16]`` operands.
"""

from __future__ import annotations

from llvmlite import ir

from .layout import DimMap
from .tile import Key, Tile
from .types import I64


def _run_start(dm: DimMap, n: int, contiguity: int, i: int) -> int | None:
    """The register index that starts register ``i``'s run along one dimension, or None when
    runs depend on the thread (then nothing is rewritten)."""
    s = dm.spt_in(n)
    if contiguity >= n and n % dm.tile == 0:
        return 0  # the whole dimension is one run: every register is register 0 plus a constant
    if contiguity % dm.tile == 0 and n % dm.tile == 0:
        per_run = contiguity // dm.tile  # repetitions of the layout inside one run
        return (i // s) // per_run * per_run * s
    if s > 1 and contiguity % s == 0:
        return i // s * s  # the run holds this thread's vector of ``spt`` elements
    return None


def rebase(
    b: ir.IRBuilder,
    ptrs: Tile,
    contiguity: tuple[int, ...],
    elem_ty: ir.Type,
    only: set[Key] | None = None,
) -> Tile:
    """``ptrs`` with every register after the first of its run addressed from that first one
    (``elem_ty`` is the pointee's memory type); with ``only``, just those registers (the
    others keep their own pointers: a vector access reads the first of its elements only)."""
    if not contiguity or max(contiguity) <= 1:
        return ptrs
    dim = max(range(len(contiguity)), key=lambda d: contiguity[d])
    dm, n = ptrs.layout.dim_maps()[dim], ptrs.shape[dim]
    if n <= 1:
        return ptrs
    regs: dict[Key, ir.Value] = {}
    for key, reg in ptrs.regs.items():
        start = _run_start(dm, n, min(contiguity[dim], n), key[dim])
        if start is None:
            return ptrs
        first = (*key[:dim], start, *key[dim + 1 :])
        delta = dm.offset(key[dim], n) - dm.offset(start, n)
        if first == key or first not in ptrs.regs or (only is not None and key not in only):
            regs[key] = reg
        else:
            regs[key] = b.gep(ptrs.regs[first], [ir.Constant(I64, delta)], source_etype=elem_ty)
    return Tile(ptrs.layout, ptrs.shape, regs)
