"""The lazy load tile of the CPU backend and what every memory rule shares with it: element
addresses, masked execution, one element read, and the mask a loop nest is worth splitting at.
A leaf below the lowering (``Lowering.write`` splits at load masks too)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ...ir.types import Element, PointerType
from ..llvm import types as T
from .nest import range_form
from .scalar import constant
from .tiles import Index, MapTile, Scope, Tile, storage


def pointee(ptr_elem: Element) -> Element:
    assert isinstance(ptr_elem, PointerType)
    return ptr_elem.element


def align_of(elem: Element) -> int:
    return 8 if isinstance(elem, PointerType) else max(elem.bits // 8, 1)


def address(s: Scope, ptr: Tile, idx: Index) -> ir.Value:
    """The element pointer at ``idx``; pointers with a known stride along the axis the nest
    runs innermost become ``row_base + c*i`` there, so LLVM sees consecutive (or evenly spaced)
    accesses whichever axis that is."""
    axis = _step_axis(s, ptr)
    if axis is None:
        return s.get(ptr, idx)
    st = ptr.stride_on(axis)
    assert st
    base = s.get(ptr, (*idx[:axis], s.zero, *idx[axis + 1 :]))
    step = idx[axis] if st == 1 else s.b.mul(idx[axis], s.const(st))
    return s.b.gep(base, [step], source_etype=storage(pointee(ptr.elem)))


def _step_axis(s: Scope, ptr: Tile) -> int | None:
    """The axis to address ``ptr`` along: the nest's innermost one when it has the pointer's
    rank, else the last axis, else a unit-stride one (a nest over fewer axes, such as a
    reduction's, then still steps through memory one element at a time)."""
    rank = len(ptr.shape)
    if not rank:
        return None
    if s.inner is not None and s.inner[0] == rank:
        return s.inner[1] if ptr.stride_on(s.inner[1]) else None
    if ptr.stride():
        return rank - 1
    return next((a for a in range(rank) if ptr.stride_on(a) in (1, -1)), None)


def guarded(
    b: ir.IRBuilder,
    cond: ir.Value,
    then: Callable[[], ir.Value | None],
    otherwise: ir.Value | None = None,
) -> ir.Value | None:
    """Run ``then`` only where ``cond`` holds; with ``otherwise``, return a phi of both values."""
    if isinstance(cond, ir.Constant):
        if cond.constant:
            return then()
        return otherwise
    pre = b.block
    on = b.function.append_basic_block("m.on")
    done = b.function.append_basic_block("m.done")
    b.cbranch(cond, on, done)
    b.position_at_end(on)
    v = then()
    on_end = b.block
    b.branch(done)
    b.position_at_end(done)
    if otherwise is None or v is None:
        return None
    phi = b.phi(v.type)
    phi.add_incoming(v, on_end)
    phi.add_incoming(otherwise, pre)
    return phi


class LoadTile(Tile):
    """``load(ptr, mask, other)`` one element at a time."""

    has_load = True

    def __init__(self, ptr: Tile, mask: Tile | None, other: Tile | None, volatile: bool = False):
        self.shape, self.ptr, self.mask, self.other = ptr.shape, ptr, mask, other
        self.elem = pointee(ptr.elem)
        self.volatile = volatile

    def cost(self) -> int:
        # a strided/contiguous load (along any axis, which a nest may run innermost) is one
        # instruction off a hoisted row base: reloading it (from cache) is as cheap as reading a
        # stack copy; a gather is not
        strided = any(self.ptr.stride_on(a) is not None for a in range(len(self.shape)))
        return 2 if strided else 4 + self.ptr.cost()

    def children(self) -> Sequence[Tile]:
        return [t for t in (self.ptr, self.mask, self.other) if t is not None]

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        other = s.get(self.other, idx) if self.other is not None else constant(self.elem, 0)
        if self.mask is None:
            return read(s.b, address(s, self.ptr, idx), self.elem, self.volatile)
        m = s.get(self.mask, idx)
        if isinstance(m, ir.Constant) and not m.constant:
            return other
        addr = address(s, self.ptr, idx)
        v = guarded(s.b, m, lambda: read(s.b, addr, self.elem, self.volatile), other)
        assert v is not None
        return v


def read(b: ir.IRBuilder, addr: ir.Value, elem: Element, volatile: bool = False) -> ir.Value:
    """One element load. A volatile load (spin-wait flags) is an atomic acquire load: LLVM may
    not hoist it out of the loop that waits on it, and the plain loads after the wait may not
    move above it (they read what the program that set the flag wrote before its release)."""
    ty = storage(elem)
    if not volatile:
        return b.load(addr, typ=ty, align=align_of(elem))
    if isinstance(ty, ir.IntType) and ty.width == 1:  # atomics need whole bytes
        byte = b.load_atomic(addr, "acquire", 1, typ=T.i8)
        return b.icmp_unsigned("!=", byte, ir.Constant(T.i8, 0))
    return b.load_atomic(addr, "acquire", align_of(elem), typ=ty)


def find_split(
    roots: Sequence[Tile], first: Tile | None = None, axis: int | None = None
) -> Tile | None:
    """A mask worth splitting a nest at (its rows along ``axis``, default the last): ``first``
    or a load mask in the fused expression."""
    if first is not None and range_form(first, axis) is not None:
        return first
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if isinstance(t, LoadTile) and t.mask is not None and range_form(t.mask, axis) is not None:
            return t.mask
        if isinstance(t, (MapTile, LoadTile)):
            stack.extend(t.children())
    return None
