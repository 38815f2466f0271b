"""Rules for pointers, loads, stores and atomics.

Loads are lazy tiles fused into their consumers' loops. A pointer tile that is contiguous along
the innermost index is addressed as ``row_base + i`` so LLVM sees consecutive accesses; a range
mask splits the loop (nest.py) so the in-bounds part has no per-lane branch. Masked-off lanes never
touch memory. Stores and atomics run where they stand, after pending loads are read; a store's
nest runs innermost the axis its memory is laid out along (inner_axis.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....errors import UnsupportedFeature
from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import Element, Kind, PointerType, ScalarType, element_of, shape_of
from ...llvm import types as T
from ..inner_axis import inner_axis
from ..load_tile import LoadTile, address, align_of, find_split, guarded, pointee, read
from ..lower import Lowering, result_shape
from ..nest import emit_nest
from ..scalar import binary, constant, from_compute, to_compute
from ..store_hazard import overwrites_pending_load
from ..tiles import BufferTile, Index, Scope, Tile, storage
from .elementwise import elementwise

# per-element cost (Tile.cost) up to which a store loop counts as streaming memory
STREAMING_COST = 8


def _extend_offset(b: ir.IRBuilder, off: ir.Value, t: Element) -> ir.Value:
    if off.type.width == 64:
        return off
    if isinstance(t, ScalarType) and t.kind is Kind.SINT:
        return b.sext(off, T.i64)
    return b.zext(off, T.i64)


def _addptr(lw: Lowering, op: O.AddPtrOp) -> None:
    element = storage(pointee(element_of(op.operands[0].type)))
    off_t = element_of(op.operands[1].type)

    def fn(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
        return b.gep(v[0], [_extend_offset(b, v[1], off_t)], source_etype=element)

    def strides(s: Sequence[int | None]) -> int | None:
        return None if None in s else s[0] + s[1]  # type: ignore[operator]

    elementwise(lw, op, fn, strides)


def _load(lw: Lowering, op: O.LoadOp) -> None:
    ptr = lw.get(op.ptr)
    if not isinstance(ptr, Tile):
        _scalar_load(lw, op, ptr)
        return
    shape = result_shape(op)
    mask = lw.tile(op.mask, shape) if op.mask is not None else None
    other = lw.tile(op.other, shape) if op.other is not None else None
    tile = LoadTile(ptr, mask, other, op.volatile)
    # a volatile load happens where it stands, not wherever its consumers get fused
    lw.define(op.result, lw.settle(tile) if op.volatile else tile)


def _scalar_load(lw: Lowering, op: O.LoadOp, ptr: ir.Value) -> None:
    elem = element_of(op.result.type)
    b = lw.b
    if op.mask is None:
        lw.define(op.result, read(b, ptr, elem, op.volatile))
        return
    other = lw.scalar(op.other) if op.other is not None else constant(elem, 0)
    v = guarded(b, lw.scalar(op.mask), lambda: read(b, ptr, elem, op.volatile), other)
    lw.define(op.result, v)


def _store(lw: Lowering, op: O.StoreOp) -> None:
    lw.flush_loads(lw.live.order[op])
    ptr = lw.get(op.ptr)
    elem = element_of(op.value.type)
    if not isinstance(ptr, Tile):
        val = lw.scalar(op.value)
        cond = lw.scalar(op.mask) if op.mask is not None else ir.Constant(T.i1, 1)
        guarded(lw.b, cond, lambda: lw.b.store(val, ptr, align=align_of(elem)))
        return
    shape = shape_of(op.ptr.type)
    value = lw.tile(op.value, shape)
    mask = lw.tile(op.mask, shape) if op.mask is not None else None
    ptr, value, mask = _settled(lw, op, ptr, value, mask)

    def body(s: Scope, idx: Index) -> None:
        m = s.get(mask, idx) if mask is not None else ir.Constant(T.i1, 1)
        if isinstance(m, ir.Constant) and not m.constant:
            return
        v = s.get(value, idx)
        addr = address(s, ptr, idx)
        guarded(s.b, m, lambda: s.b.store(v, addr, align=align_of(elem)))

    width = streaming_width(lw, value)
    inner = inner_axis(shape, [value, *([mask] if mask is not None else [])], [ptr])
    split = find_split([value], mask, inner)
    # only the store's own mask makes a lane do nothing; a split on a load's mask inside the
    # value still stores ``other`` on the masked-off lanes
    skip = split is not None and split is mask
    emit_nest(lw.b, shape, body, split, skip_masked_off=skip, width=width, inner=inner)


def _settled(
    lw: Lowering, op: Op, ptr: Tile, value: Tile, extra: Tile | None
) -> tuple[Tile, Tile, Tile | None]:
    """A store's (or atomic's) pointer tile and operand tiles, computed whole first where
    writing an element could change what a load among them reads for a later one."""
    if not overwrites_pending_load(lw.env, frozenset(lw.func.args), op.operands[0], op.operands):
        return ptr, value, extra
    settle = lw.settle
    return (
        settle(ptr) if ptr.has_load else ptr,
        settle(value),
        None if extra is None else settle(extra),
    )


def streaming_width(lw: Lowering, value: Tile) -> int | None:
    """Vector lanes for a store loop that streams memory to memory (reads memory lazily, little
    arithmetic per element): 256-bit on targets with 512-bit registers. Measured on znver4,
    alternating both variants in either order: a 4M-element fp32 vector add runs 8-16% faster
    with 256-bit loads and stores (a plain C loop shows the same); a store of computed values
    (a softmax's quotient read from a buffer) keeps full width, which is ~2% faster there."""
    if lw.vector_width < 16 or not value.has_load or value.cost() > STREAMING_COST:
        return None
    bits = T.bit_width(storage(value.elem)) if not isinstance(value.elem, PointerType) else 64
    return 256 // max(bits, 8)


# -- atomics ----------------------------------------------------------------------------------

# LLVM's orderings of each semantic: (success, failure); a failed cmpxchg stores nothing, so it
# cannot release. One address space: the scope orders nothing more on the CPU
_ORDER = {
    O.MemorySemantic.ACQ_REL: ("acq_rel", "acquire"),
    O.MemorySemantic.ACQUIRE: ("acquire", "acquire"),
    O.MemorySemantic.RELEASE: ("release", "monotonic"),
    O.MemorySemantic.RELAXED: ("monotonic", "monotonic"),
}


def _rmw_name(kind: O.AtomicKind, elem: ScalarType) -> str:
    if elem.is_floating():
        names = {
            O.AtomicKind.ADD: "fadd",
            O.AtomicKind.MAX: "fmax",
            O.AtomicKind.MIN: "fmin",
            O.AtomicKind.XCHG: "xchg",
        }
    else:
        signed = elem.kind is Kind.SINT
        names = {
            O.AtomicKind.ADD: "add",
            O.AtomicKind.AND: "and",
            O.AtomicKind.OR: "or",
            O.AtomicKind.XOR: "xor",
            O.AtomicKind.XCHG: "xchg",
            O.AtomicKind.MAX: "max" if signed else "umax",
            O.AtomicKind.MIN: "min" if signed else "umin",
        }
    if kind not in names:
        raise UnsupportedFeature(f"atomic {kind.value} on {elem}")
    return names[kind]


def _atomic_one(
    b: ir.IRBuilder,
    kind: O.AtomicKind,
    elem: ScalarType,
    addr: ir.Value,
    val: ir.Value,
    sem: O.MemorySemantic,
) -> ir.Value:
    if elem.name == "bf16" or (elem.is_bool()):
        return _cas_loop(b, kind, elem, addr, val, sem)
    return b.atomic_rmw(_rmw_name(kind, elem), addr, val, _ORDER[sem][0])


def _cas_loop(
    b: ir.IRBuilder,
    kind: O.AtomicKind,
    elem: ScalarType,
    addr: ir.Value,
    val: ir.Value,
    sem: O.MemorySemantic,
) -> ir.Value:
    """Read-modify-write through compare-exchange, for types atomicrmw lacks (bf16, i1)."""
    ty = storage(elem)
    old0 = b.load(addr, typ=ty, align=align_of(elem))
    pre = b.block
    loop = b.function.append_basic_block("cas.loop")
    done = b.function.append_basic_block("cas.done")
    b.branch(loop)
    b.position_at_end(loop)
    old = b.phi(ty)
    old.add_incoming(old0, pre)
    if kind is O.AtomicKind.XCHG:
        new = val
    else:
        bk = {
            O.AtomicKind.ADD: O.BinaryKind.ADD,
            O.AtomicKind.MAX: O.BinaryKind.MAX,
            O.AtomicKind.MIN: O.BinaryKind.MIN,
            O.AtomicKind.AND: O.BinaryKind.AND,
            O.AtomicKind.OR: O.BinaryKind.OR,
            O.AtomicKind.XOR: O.BinaryKind.XOR,
        }[kind]
        if elem.is_bool() and bk is O.BinaryKind.ADD:
            bk = O.BinaryKind.OR
        new = binary(b, bk, elem, old, val)
    pair = b.cmpxchg(addr, old, new, *_ORDER[sem])
    seen = b.extract_value(pair, 0)
    old.add_incoming(seen, b.block)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    return seen


def _atomic_rmw(lw: Lowering, op: O.AtomicRMWOp) -> None:
    lw.flush_loads(lw.live.order[op])
    elem = element_of(op.result.type)
    assert isinstance(elem, ScalarType)
    sem = op.ordering.sem
    kind = op.kind
    ptr = lw.get(op.operands[0])
    if not isinstance(ptr, Tile):
        val = lw.scalar(op.operands[1])
        cond = lw.scalar(op.mask) if op.mask is not None else ir.Constant(T.i1, 1)
        zero = constant(elem, 0)
        r = guarded(lw.b, cond, lambda: _atomic_one(lw.b, kind, elem, ptr, val, sem), zero)
        lw.define(op.result, r)
        return
    shape = shape_of(op.result.type)
    value = lw.tile(op.operands[1], shape)
    mask = lw.tile(op.mask, shape) if op.mask is not None else None
    ptr, value, mask = _settled(lw, op, ptr, value, mask)
    out = lw.buffer(elem, shape)

    def body(s: Scope, idx: Index) -> None:
        m = s.get(mask, idx) if mask is not None else ir.Constant(T.i1, 1)
        v = s.get(value, idx)
        addr = address(s, ptr, idx)
        r = guarded(s.b, m, lambda: _atomic_one(s.b, kind, elem, addr, v, sem), constant(elem, 0))
        s.b.store(r, out.element_ptr(s, idx))

    emit_nest(lw.b, shape, body)
    lw.define(op.result, out)


def _atomic_cas(lw: Lowering, op: O.AtomicCASOp) -> None:
    lw.flush_loads(lw.live.order[op])
    elem = element_of(op.result.type)
    order, fail = _ORDER[op.ordering.sem]

    def one(b: ir.IRBuilder, addr: ir.Value, cmp: ir.Value, val: ir.Value) -> ir.Value:
        ty = storage(elem)
        if isinstance(ty, (ir.IntType, ir.PointerType)):
            return b.extract_value(b.cmpxchg(addr, cmp, val, order, fail), 0)
        it = ir.IntType(align_of(elem) * 8)
        pair = b.cmpxchg(addr, b.bitcast(cmp, it), b.bitcast(val, it), order, fail)
        return b.bitcast(b.extract_value(pair, 0), ty)

    ptr = lw.get(op.operands[0])
    if not isinstance(ptr, Tile):
        lw.define(op.result, one(lw.b, ptr, lw.scalar(op.operands[1]), lw.scalar(op.operands[2])))
        return
    shape = shape_of(op.result.type)
    cmp, val = lw.tile(op.operands[1], shape), lw.tile(op.operands[2], shape)
    ptr, cmp, settled = _settled(lw, op, ptr, cmp, val)
    val = val if settled is None else settled
    out = lw.buffer(elem, shape)

    def body(s: Scope, idx: Index) -> None:
        r = one(s.b, address(s, ptr, idx), s.get(cmp, idx), s.get(val, idx))
        s.b.store(r, out.element_ptr(s, idx))

    emit_nest(lw.b, shape, body)
    lw.define(op.result, out)


RULES: dict[type, Callable[..., None]] = {
    O.AddPtrOp: _addptr,
    O.LoadOp: _load,
    O.StoreOp: _store,
    O.AtomicRMWOp: _atomic_rmw,
    O.AtomicCASOp: _atomic_cas,
}

__all__ = ["RULES", "BufferTile", "LoadTile", "address", "find_split", "from_compute", "to_compute"]
