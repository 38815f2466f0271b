"""Distributed layouts: which thread holds which element of a tile, computed in the backend.

A layout maps each tile dimension through a :class:`DimMap` (elements per thread, lanes and warps
along it). ``Blocked`` layouts come from shapes and vector widths; ``Slice`` layouts are what a
reduction leaves (the parent minus one dimension) and expand back to the parent for free. Each
thread keeps its elements in a dict keyed by per-dimension register indices.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Union

# NVIDIA's warp: what NvptxTarget.warp_size is, and the default of the functions below for
# callers that do not pass their target's (layout_assign.py, lowering.py: issue 13)
WARP_SIZE = 32


@dataclass(frozen=True)
class DimMap:
    """One dimension: ``spt`` contiguous elements per thread, repeated every ``spt*tpw*wpc``.

    The thread index along the dimension is ``warp_d * tpw + lane_d`` with
    ``lane_d = (lane // lane_stride) % tpw`` and ``warp_d = (warp // warp_stride) % wpc``.
    """

    spt: int = 1
    tpw: int = 1
    lane_stride: int = 1
    wpc: int = 1
    warp_stride: int = 1

    @property
    def tile(self) -> int:
        return self.spt * self.tpw * self.wpc

    def spt_in(self, n: int) -> int:
        return min(self.spt, n)

    def regs(self, n: int) -> int:
        """Registers per thread along this dimension for a tile dimension of ``n``."""
        return self.spt_in(n) * max(1, n // self.tile)

    def distinct_threads(self, n: int) -> int:
        """How many thread positions along the dimension hold different elements."""
        return min(self.tpw * self.wpc, max(1, n // self.spt))

    def distinct_lanes(self, n: int) -> int:
        return min(self.tpw, self.distinct_threads(n))

    def distinct_warps(self, n: int) -> int:
        return max(1, self.distinct_threads(n) // self.tpw)

    def offset(self, i: int, n: int) -> int:
        """The compile-time part of register ``i``'s coordinate (add the thread part, mod n)."""
        s = self.spt_in(n)
        return (i // s) * self.tile + i % s


TRIVIAL = DimMap()


@dataclass(frozen=True)
class Blocked:
    dims: tuple[DimMap, ...]
    order: tuple[int, ...]  # dimensions from fastest-varying to slowest (for vector accesses)

    def dim_maps(self) -> tuple[DimMap, ...]:
        return self.dims


@dataclass(frozen=True)
class Slice:
    """``parent`` with dimension ``dim`` removed: the result layout of a reduction."""

    parent: Layout
    dim: int

    def dim_maps(self) -> tuple[DimMap, ...]:
        maps = self.parent.dim_maps()
        return maps[: self.dim] + maps[self.dim + 1 :]

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(d - (d > self.dim) for d in self.parent.order if d != self.dim)


Layout = Union[Blocked, Slice]  # noqa: UP007 (a runtime alias; X | Y needs 3.10 classes)


def _pow2_floor(n: int) -> int:
    return 1 << (max(n, 1).bit_length() - 1)


def default_layout(
    shape: tuple[int, ...],
    num_warps: int,
    vec: int,
    order: tuple[int, ...] | None = None,
    warp_size: int = WARP_SIZE,
) -> Blocked:
    """The blocked layout for a tile: up to ``vec`` contiguous elements per thread along the
    fastest dimension of ``order`` (default: the last), lanes then warps filled fastest
    dimension first, leftovers replicating along the slowest dimension.

    As in Triton, the vector shrinks until every thread has an element (a [128] tile on 128
    threads takes one element each rather than leave three warps idle), so threads spread over
    every dimension that has room, size-1 dimensions and all.
    """
    rank = len(shape)
    order = order if order is not None else tuple(range(rank - 1, -1, -1))
    threads = warp_size * num_warps
    spt = [1] * rank
    spt[order[0]] = max(1, min(vec, shape[order[0]], _pow2_floor(_numel(shape) // threads)))
    tpw, wpc = [1] * rank, [1] * rank
    lanes, warps = warp_size, num_warps
    for d in order:
        room = max(1, shape[d] // spt[d])
        tpw[d] = min(lanes, _pow2_floor(room))
        lanes //= tpw[d]
    tpw[order[-1]] *= lanes
    for d in order:
        room = max(1, shape[d] // (spt[d] * tpw[d]))
        wpc[d] = min(warps, _pow2_floor(room))
        warps //= wpc[d]
    wpc[order[-1]] *= warps
    return Blocked(_with_strides(spt, tpw, wpc, order), order)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def elements_per_thread(layout: Layout, shape: tuple[int, ...]) -> int:
    """How many registers (elements) one thread holds of a tile of ``shape`` in ``layout``."""
    n = 1
    for dm, size in zip(layout.dim_maps(), shape):
        n *= dm.regs(size)
    return n


def _with_strides(
    spt: list[int], tpw: list[int], wpc: list[int], order: tuple[int, ...]
) -> tuple[DimMap, ...]:
    maps: list[DimMap | None] = [None] * len(spt)
    lane_stride = warp_stride = 1
    for d in order:
        maps[d] = DimMap(spt[d], tpw[d], lane_stride, wpc[d], warp_stride)
        lane_stride *= tpw[d]
        warp_stride *= wpc[d]
    return tuple(m for m in maps if m is not None)


def with_dim(layout: Layout, axis: int, dim: DimMap) -> Blocked:
    """``layout`` with dimension ``axis`` replaced by ``dim`` (keeping the others' threads)."""
    maps = list(layout.dim_maps())
    maps[axis] = dim
    return Blocked(tuple(maps), layout.order)


def expand(layout: Layout, axis: int) -> Layout:
    """The layout of ``expand_dims(value, axis)``: a slice's parent, else a new trivial dim."""
    if isinstance(layout, Slice) and layout.dim == axis:
        return layout.parent
    maps = list(layout.dim_maps())
    maps.insert(axis, TRIVIAL)
    order = (*tuple(d + (d >= axis) for d in layout.order), axis)
    return Blocked(tuple(maps), order)


def register_keys(layout: Layout, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every register of one thread, as per-dimension indices."""
    counts = [m.regs(n) for m, n in zip(layout.dim_maps(), shape)]
    return list(itertools.product(*(range(c) for c in counts)))


@dataclass(frozen=True)
class Ownership:
    """Which threads own the elements of a layout that replicates data (stores and atomics
    must happen once per element): ``thread_index(dm) < limit`` for each bounded dimension, and
    the lane and warp bits that no dimension uses must be zero."""

    bounded: tuple[tuple[DimMap, int], ...]
    free_lane_bits: int
    free_warp_bits: int

    @property
    def everyone(self) -> bool:
        return not self.bounded and not self.free_lane_bits and not self.free_warp_bits

    def owns(self, lane: int, warp: int) -> bool:
        """Evaluate the ownership test for one thread (what the generated code computes)."""
        if lane & self.free_lane_bits or warp & self.free_warp_bits:
            return False
        return all(thread_index(dm, lane, warp) < limit for dm, limit in self.bounded)


def thread_index(dm: DimMap, lane: int, warp: int) -> int:
    return ((warp // dm.warp_stride) % dm.wpc) * dm.tpw + (lane // dm.lane_stride) % dm.tpw


def ownership(
    layout: Layout, shape: tuple[int, ...], num_warps: int, warp_size: int = WARP_SIZE
) -> Ownership:
    bounded = tuple(
        (dm, dm.distinct_threads(n))
        for dm, n in zip(layout.dim_maps(), shape)
        if dm.tpw * dm.wpc > dm.distinct_threads(n)
    )
    lane_bits = warp_bits = 0
    for dm in layout.dim_maps():
        lane_bits |= (dm.tpw - 1) * dm.lane_stride
        warp_bits |= (dm.wpc - 1) * dm.warp_stride
    return Ownership(bounded, (warp_size - 1) & ~lane_bits, (num_warps - 1) & ~warp_bits)


def uses_threads(layout: Layout) -> bool:
    return any(m.tpw > 1 or m.wpc > 1 for m in layout.dim_maps())
