"""Element indices as a per-thread part plus a compile-time constant, computed once per thread.

In a distributed layout the coordinate of register ``i`` along a dimension is
``(thread * spt + offset(i)) % n``. For the power-of-two layouts tilec builds, the thread part and
the register part never overlap, so the coordinate is ``part + offset(i)`` with ``part = (thread
* spt) % n`` the same for every register. An :class:`Index` keeps that form through the linear
index arithmetic of layout conversions (``sum(coord * stride)``): the thread-dependent terms are
emitted once, in the prologue, and each register adds a constant. Layout conversions then address
shared memory as ``gep(thread base, constant)``, a few instructions per tile instead of a dozen
per register, which NVPTX's straight-line strength reduction (quadratic in the number of
variable-index GEPs on one base) and the rest of LLVM process in a fraction of the time.

Everything here is exact: :func:`coords` answers None when some register's coordinate would wrap
(then the caller computes the general formula), and :func:`thread_values` evaluates a thread
part for every thread, so callers can prove facts such as "no carry into the padding bits".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .layout import DimMap, Layout, thread_index


@dataclass(frozen=True)
class ThreadPart:
    """``(thread_index(dm) * spt) % n``: one dimension's thread-dependent coordinate."""

    dm: DimMap
    n: int

    def eval(self, lane: int, warp: int) -> int:
        return (thread_index(self.dm, lane, warp) * self.dm.spt) % self.n

    @property
    def wraps(self) -> bool:
        """Whether the modulo can change the value (a thread index past the dimension)."""
        return (self.dm.tpw * self.dm.wpc - 1) * self.dm.spt >= self.n


Terms = frozenset[tuple[ThreadPart, int]]  # sum of coefficient * part (coefficients != 0)
NO_TERMS: Terms = frozenset()


def _terms(parts: dict[ThreadPart, int]) -> Terms:
    return frozenset((p, c) for p, c in parts.items() if c)


def ordered(terms: Terms) -> list[tuple[ThreadPart, int]]:
    """``terms`` in a fixed order (for emitting them deterministically)."""
    return sorted(terms, key=lambda pc: (pc[0].n, *vars(pc[0].dm).values(), pc[1]))


@dataclass(frozen=True)
class Index:
    """``sum(coefficient * part) + const``: an i32 index with its thread-dependent terms kept
    apart from the compile-time constant. Supports ``+``, ``-`` and ``*`` by ints."""

    terms: Terms = NO_TERMS
    const: int = 0

    def _merge(self, other: Index, sign: int) -> Index:
        if not other.terms:
            return Index(self.terms, self.const + sign * other.const)
        if not self.terms and sign == 1:
            return Index(other.terms, self.const + other.const)
        parts = dict(self.terms)
        for p, c in other.terms:
            parts[p] = parts.get(p, 0) + sign * c
        return Index(_terms(parts), self.const + sign * other.const)

    def __add__(self, other: Index | int) -> Index:
        if isinstance(other, int):
            return Index(self.terms, self.const + other)
        return self._merge(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Index | int) -> Index:
        if isinstance(other, int):
            return Index(self.terms, self.const - other)
        return self._merge(other, -1)

    def __rsub__(self, other: int) -> Index:
        return Index(frozenset((p, -c) for p, c in self.terms), other - self.const)

    def __mul__(self, k: int) -> Index:
        if k == 1:
            return self
        if k == 0:
            return Index()
        return Index(frozenset((p, c * k) for p, c in self.terms), self.const * k)

    __rmul__ = __mul__


def as_index(x: Index | int) -> Index:
    return x if isinstance(x, Index) else Index(NO_TERMS, x)


@functools.cache
def _single(dm: DimMap, n: int) -> Terms:
    return frozenset({(ThreadPart(dm, n), 1)})


@functools.cache
def _max_part(dm: DimMap, n: int) -> int:
    return max((t * dm.spt) % n for t in range(dm.tpw * dm.wpc))


def coords(layout: Layout, shape: tuple[int, ...], key: tuple[int, ...]) -> list[Index] | None:
    """The coordinates of register ``key`` as Indices, or None when one of them wraps around
    its dimension in some thread (then ``thread part + offset`` would not be the coordinate)."""
    out = []
    for dm, n, i in zip(layout.dim_maps(), shape, key):
        off = dm.offset(i, n)
        if dm.distinct_threads(n) == 1:
            out.append(Index(NO_TERMS, off % n))
            continue
        if off + _max_part(dm, n) >= n:
            return None
        out.append(Index(_single(dm, n), off))
    return out


def linear(cs: list[Index | int], shape: tuple[int, ...]) -> Index:
    """The row-major linear index of coordinates ``cs`` in ``shape``."""
    idx, stride = Index(), 1
    for c, n in zip(reversed(cs), reversed(shape)):
        idx = idx + as_index(c) * stride
        stride *= n
    return idx


@functools.cache
def thread_values(terms: Terms, num_warps: int, warp_size: int) -> tuple[int, ...]:
    """The value of ``terms`` in every thread of the block."""
    return tuple(
        sum(c * p.eval(lane, warp) for p, c in terms)
        for warp in range(num_warps)
        for lane in range(warp_size)
    )


@functools.cache
def low_bits_max(terms: Terms, num_warps: int, warp_size: int, shift: int) -> int | None:
    """The largest ``value % 2**shift`` of ``terms`` over the block's threads, or None when the
    value is negative in some thread."""
    values = thread_values(terms, num_warps, warp_size)
    if min(values) < 0:
        return None
    return max(v & ((1 << shift) - 1) for v in values)
