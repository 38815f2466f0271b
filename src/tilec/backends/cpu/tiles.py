"""How the CPU backend represents a tile value while lowering: an element *expression*.

A Tile computes one element from an index tuple (one i64 per dimension) inside a loop nest. Chains
of elementwise ops stay lazy, so a whole chain becomes one loop body with its intermediates in
registers; only materialization points write a stack buffer (:class:`BufferTile`). ``stride`` is
the contiguity fact: the element's change per step of the innermost index (in elements for
pointers), 0 for values constant along it, None when unknown; ``stride_on(axis)`` is the same
fact along any axis (a loop nest may run another axis innermost: nest.py, inner_axis.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from llvmlite import ir

from ...ir.types import Element, PointerType, int32
from ..llvm import types as T

Index = tuple[ir.Value, ...]


class Scope:
    """One place element code is emitted: a builder, known mask facts and a per-index cache.

    ``facts`` maps tiles (masks) to a known i1 in this part of a split loop. The cache keys on the
    identity of the index values, so an element is computed once per scope however often it is
    used; a child scope also reuses its parent's values (they dominate it). ``inner`` is the
    (rank, axis) of the loop nest's innermost loop, where a nest set it (memory accesses of that
    rank address elements as a base plus a step along that axis)."""

    def __init__(
        self,
        b: ir.IRBuilder,
        facts: dict[int, bool] | None = None,
        parent: Scope | None = None,
        inner: tuple[int, int] | None = None,
    ):
        self.b = b
        self.facts = dict(facts or {})
        self.parent = parent
        self.inner = inner if inner is not None or parent is None else parent.inner
        self.cache: dict[tuple[int, tuple[int, ...]], ir.Value] = {}
        self._consts: dict[int, ir.Constant] = parent._consts if parent else {}

    def const(self, n: int) -> ir.Constant:
        v = self._consts.get(n)
        if v is None:
            v = self._consts[n] = ir.Constant(T.i64, n)
        return v

    @property
    def zero(self) -> ir.Constant:
        return self.const(0)

    def _lookup(self, key: tuple[int, tuple[int, ...]]) -> ir.Value | None:
        scope: Scope | None = self
        while scope is not None:
            v = scope.cache.get(key)
            if v is not None:
                return v
            scope = scope.parent
        return None

    def get(self, tile: Tile, idx: Index) -> ir.Value:
        key = (id(tile), tuple(map(id, idx)))
        v = self._lookup(key)
        if v is None:
            fact = self.facts.get(id(tile))
            v = ir.Constant(T.i1, int(fact)) if fact is not None else tile.emit(self, idx)
            self.cache[key] = v
        return v


class Tile:
    """Base class: ``shape``, IR ``elem`` type, and how to emit one element."""

    shape: tuple[int, ...]
    elem: Element
    has_load = False  # reads memory (must not be re-read after a store)

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        raise NotImplementedError

    def stride(self) -> int | None:
        return None

    def stride_on(self, axis: int) -> int | None:
        """The element's change per step of index ``axis`` (0: constant along it)."""
        return self.stride() if axis == len(self.shape) - 1 else None

    def cost(self) -> int:
        return 1

    def children(self) -> Sequence[Tile]:
        return ()


class ConstTile(Tile):
    def __init__(self, shape: tuple[int, ...], elem: Element, value: ir.Value, py: Any = None):
        self.shape, self.elem, self.value, self.py = shape, elem, value, py

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return self.value

    def stride(self) -> int:
        return 0

    def stride_on(self, axis: int) -> int:
        return 0


class SplatTile(ConstTile):
    """A run-time scalar in every element."""


class RangeTile(Tile):
    """``make_range(start, end)``: element i is ``start + i`` (i32)."""

    def __init__(self, start: int, n: int):
        self.shape, self.elem, self.start = (n,), int32, start

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        v = s.b.trunc(idx[0], T.i32)
        return s.b.add(v, ir.Constant(T.i32, self.start)) if self.start else v

    def stride(self) -> int:
        return 1

    def stride_on(self, axis: int) -> int:
        return 1


StrideRule = Callable[[Sequence[int | None]], int | None]


def uniform_only(strides: Sequence[int | None]) -> int | None:
    return 0 if all(s == 0 for s in strides) else None


class MapTile(Tile):
    """An elementwise function of other tiles, emitted element by element.

    ``tag`` names the op for the contiguity and mask analyses (e.g. ``("lt", signed)``).
    ``stride_rule`` holds along every axis (operands have the tile's shape) unless
    ``innermost_only``: then it is a fact about the last axis alone."""

    def __init__(
        self,
        shape: tuple[int, ...],
        elem: Element,
        operands: Sequence[Tile],
        fn: Callable[[ir.IRBuilder, list[ir.Value]], ir.Value],
        stride_rule: StrideRule = uniform_only,
        tag: tuple[Any, ...] = (),
        weight: int = 1,
        innermost_only: bool = False,
    ):
        self.shape, self.elem, self.operands, self.fn = shape, elem, list(operands), fn
        self.stride_rule, self.tag, self.weight = stride_rule, tag, weight
        self.innermost_only = innermost_only
        self.has_load = any(o.has_load for o in self.operands)
        self._cost = weight + sum(o.cost() for o in self.operands)

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return self.fn(s.b, [s.get(o, idx) for o in self.operands])

    def stride(self) -> int | None:
        return self.stride_rule([o.stride() for o in self.operands])

    def stride_on(self, axis: int) -> int | None:
        if axis == len(self.shape) - 1:
            return self.stride()
        if self.innermost_only:
            return None
        return self.stride_rule([o.stride_on(axis) for o in self.operands])

    def cost(self) -> int:
        return self._cost

    def children(self) -> Sequence[Tile]:
        return self.operands


# ViewTile.axes: an axis the view does not read (broadcast, a new unit axis)
UNREAD = -1


class ViewTile(Tile):
    """Another tile read through an index map (broadcast, transpose, reshape, flip ...).

    ``axes``, where known, says for each axis of the view which source axis its index passes to
    unchanged (no other source index depends on it), or UNREAD; None entries are unknown."""

    def __init__(
        self,
        shape: tuple[int, ...],
        src: Tile,
        index_map: Callable[[Scope, Index], Index],
        stride: int | None = None,
        inner_identity: bool = False,
        axes: tuple[int | None, ...] | None = None,
    ):
        self.shape, self.elem, self.src, self.index_map = shape, src.elem, src, index_map
        self._stride = stride
        self.inner_identity = inner_identity  # the innermost index passes through unchanged
        self.axes = axes
        self.has_load = src.has_load

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return s.get(self.src, self.index_map(s, idx))

    def stride(self) -> int | None:
        return self.stride_on(len(self.shape) - 1)

    def stride_on(self, axis: int) -> int | None:
        m = self.axes[axis] if self.axes is not None else None
        if m is None:
            return self._stride if axis == len(self.shape) - 1 else None
        return 0 if m == UNREAD else self.src.stride_on(m)

    def source_axis(self, axis: int) -> int | None:
        """The source axis index ``axis`` passes to unchanged, when known."""
        if self.axes is not None:
            m = self.axes[axis]
            return m if m is not None and m != UNREAD else None
        if self.inner_identity and axis == len(self.shape) - 1:
            return len(self.src.shape) - 1
        return None

    def cost(self) -> int:
        return self.src.cost()

    def children(self) -> Sequence[Tile]:
        return (self.src,)


class BufferTile(Tile):
    """A materialized tile: a stack (or caller) buffer of storage-typed elements, row-major
    unless ``order`` (the axes from outermost to innermost in memory) says otherwise."""

    def __init__(
        self,
        shape: tuple[int, ...],
        elem: Element,
        addr: ir.Value,
        order: tuple[int, ...] | None = None,
    ):
        self.shape, self.elem, self.addr = shape, elem, addr
        self.order = None if order == tuple(range(len(shape))) else order

    @property
    def row_major(self) -> bool:
        return self.order is None

    def memory_stride(self, axis: int) -> int:
        """Elements between neighbours along ``axis`` in memory."""
        order = self.order if self.order is not None else tuple(range(len(self.shape)))
        n = 1
        for a in order[order.index(axis) + 1 :]:
            n *= self.shape[a]
        return n

    def element_ptr(self, s: Scope, idx: Index) -> ir.Value:
        if self.order is None:
            lin = linear_index(s, self.shape, idx)
        else:
            shape = tuple(self.shape[a] for a in self.order)
            lin = linear_index(s, shape, tuple(idx[a] for a in self.order))
        return s.b.gep(self.addr, [lin], source_etype=storage(self.elem))

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return s.b.load(self.element_ptr(s, idx), typ=storage(self.elem))


def storage(elem: Element) -> ir.Type:
    return T.storage_type(elem)


def order_with_inner(rank: int, inner: int | None) -> tuple[int, ...] | None:
    """A buffer layout with axis ``inner`` innermost and the others row-major (None: row-major)."""
    if inner is None or inner == rank - 1:
        return None
    return (*(a for a in range(rank) if a != inner), inner)


def linear_index(s: Scope, shape: Sequence[int], idx: Index) -> ir.Value:
    """Row-major linear position of ``idx`` in ``shape`` (i64)."""
    lin: ir.Value | None = None
    for d, i in zip(shape, idx):
        if lin is None:
            lin = i
        elif d == 1:
            continue
        else:
            lin = s.b.add(s.b.mul(lin, s.const(d)), i)
    return lin if lin is not None else s.zero


def is_pointer(elem: Element) -> bool:
    return isinstance(elem, PointerType)


def reads_buffer(tile: Tile, addrs: set[int]) -> bool:
    """Whether ``tile`` reads, anywhere beneath it, a buffer whose address is one of ``addrs``
    (ids of the buffers' address values)."""
    stack = [tile]
    while stack:
        t = stack.pop()
        if isinstance(t, BufferTile) and id(t.addr) in addrs:
            return True
        stack.extend(t.children())
    return False
