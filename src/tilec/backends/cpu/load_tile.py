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
    """The element pointer at ``idx``; contiguous pointers become ``row_base + c*i``."""
    st = ptr.stride()
    if st and idx:
        base = s.get(ptr, (*idx[:-1], s.zero))
        step = idx[-1] if st == 1 else s.b.mul(idx[-1], s.const(st))
        return s.b.gep(base, [step], source_etype=storage(pointee(ptr.elem)))
    return s.get(ptr, idx)


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
        # a strided/contiguous load is one instruction off a hoisted row base: reloading it
        # (from cache) is as cheap as reading a stack copy; a gather is not
        return 2 if self.ptr.stride() is not None else 4 + self.ptr.cost()

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


def find_split(roots: Sequence[Tile], first: Tile | None = None) -> Tile | None:
    """A mask worth splitting a nest at: ``first`` or a load mask in the fused expression."""
    if first is not None and range_form(first) is not None:
        return first
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if isinstance(t, LoadTile) and t.mask is not None and range_form(t.mask) is not None:
            return t.mask
        if isinstance(t, (MapTile, LoadTile)):
            stack.extend(t.children())
    return None
