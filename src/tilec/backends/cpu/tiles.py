"""How the CPU backend represents a tile value while lowering: an element *expression*.

A Tile computes one element from an index tuple (one i64 per dimension) inside a loop nest. Chains
of elementwise ops stay lazy, so a whole chain becomes one loop body with its intermediates in
registers; only materialization points write a stack buffer (:class:`BufferTile`). ``stride`` is
the contiguity fact: the element's change per step of the innermost index (in elements for
pointers), 0 for values constant along it, None when unknown.
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
    used; a child scope also reuses its parent's values (they dominate it)."""

    def __init__(
        self, b: ir.IRBuilder, facts: dict[int, bool] | None = None, parent: Scope | None = None
    ):
        self.b = b
        self.facts = dict(facts or {})
        self.parent = parent
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


StrideRule = Callable[[Sequence[int | None]], int | None]


def uniform_only(strides: Sequence[int | None]) -> int | None:
    return 0 if all(s == 0 for s in strides) else None


class MapTile(Tile):
    """An elementwise function of other tiles, emitted element by element.

    ``tag`` names the op for the contiguity and mask analyses (e.g. ``("lt", signed)``)."""

    def __init__(
        self,
        shape: tuple[int, ...],
        elem: Element,
        operands: Sequence[Tile],
        fn: Callable[[ir.IRBuilder, list[ir.Value]], ir.Value],
        stride_rule: StrideRule = uniform_only,
        tag: tuple[Any, ...] = (),
        weight: int = 1,
    ):
        self.shape, self.elem, self.operands, self.fn = shape, elem, list(operands), fn
        self.stride_rule, self.tag, self.weight = stride_rule, tag, weight
        self.has_load = any(o.has_load for o in self.operands)
        self._cost = weight + sum(o.cost() for o in self.operands)

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return self.fn(s.b, [s.get(o, idx) for o in self.operands])

    def stride(self) -> int | None:
        return self.stride_rule([o.stride() for o in self.operands])

    def cost(self) -> int:
        return self._cost

    def children(self) -> Sequence[Tile]:
        return self.operands


class ViewTile(Tile):
    """Another tile read through an index map (broadcast, transpose, reshape, flip ...)."""

    def __init__(
        self,
        shape: tuple[int, ...],
        src: Tile,
        index_map: Callable[[Scope, Index], Index],
        stride: int | None = None,
        inner_identity: bool = False,
    ):
        self.shape, self.elem, self.src, self.index_map = shape, src.elem, src, index_map
        self._stride = stride
        self.inner_identity = inner_identity  # the innermost index passes through unchanged
        self.has_load = src.has_load

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return s.get(self.src, self.index_map(s, idx))

    def stride(self) -> int | None:
        return self._stride

    def cost(self) -> int:
        return self.src.cost()

    def children(self) -> Sequence[Tile]:
        return (self.src,)


class BufferTile(Tile):
    """A materialized tile: a row-major stack (or caller) buffer of storage-typed elements."""

    def __init__(self, shape: tuple[int, ...], elem: Element, addr: ir.Value):
        self.shape, self.elem, self.addr = shape, elem, addr

    def element_ptr(self, s: Scope, idx: Index) -> ir.Value:
        return s.b.gep(
            self.addr, [linear_index(s, self.shape, idx)], source_etype=storage(self.elem)
        )

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        return s.b.load(self.element_ptr(s, idx), typ=storage(self.elem))


def storage(elem: Element) -> ir.Type:
    return T.storage_type(elem)


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
