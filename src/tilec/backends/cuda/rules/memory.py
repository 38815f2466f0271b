"""Loads and stores: 16-byte vector accesses where axis analysis allows, masks as predicates.

A masked access (or one with a cache hint, or volatile) is the target's predicated load or store,
one instruction per vector (inline PTX on NVPTX: ptx_memory.py); unmasked ones are plain LLVM
vector loads and stores. Elements replicated across threads are stored by their owner only.
"""

from __future__ import annotations

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op, Value
from ....ir.types import PointerType, TileType, element_of
from ..lowering import Lowering, Rule
from ..target_info import Access
from ..tile import Key, Tile
from ..types import I1, I8, I32, I64, memory_type, type_bytes
from ..vector_access import vector_groups, vector_width

# the cache hints tl.load and tl.store accept (others are ignored, as before)
_HINTS = (".ca", ".cg", ".cv", ".cs", ".wb", ".wt")


def _access(op: O.LoadOp | O.StoreOp) -> Access:
    hint = op.cache if op.cache in _HINTS else ""
    return Access(hint, isinstance(op, O.LoadOp) and op.volatile)


def _pointee(ptr: Value) -> PointerType:
    elem = element_of(ptr.type)
    assert isinstance(elem, PointerType)
    return elem


def _load(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.LoadOp)
    elem = _pointee(op.ptr).element
    mem_ty = _mem_type(elem)
    access = _access(op)
    if not isinstance(op.result.type, TileType):
        L.set(
            op.result,
            _load_one(
                L,
                L.scalar(op.ptr),
                _opt_scalar(L, op.mask),
                _opt_scalar(L, op.other),
                elem,
                mem_ty,
                access,
                1,
            )[0],
        )
        return
    layout, shape = L.want(op.result), op.result.type.shape
    groups = vector_groups(
        layout, shape, vector_width(L.axis, op.ptr, op.mask, layout, shape, L.target.vector_bytes)
    )
    ptrs = L.pointers(op.ptr, layout, [g[0] for g in groups])
    mask = L.value(op.mask, layout) if op.mask is not None else None
    other = L.value(op.other, layout) if op.other is not None else None
    regs: dict[Key, ir.Value] = {}
    for group in groups:
        pred = _reg(mask, group[0])
        others = [_reg(other, k) for k in group] if other is not None else None
        vals = _load_group(L, ptrs.regs[group[0]], pred, others, elem, mem_ty, access, len(group))
        regs.update(zip(group, vals))
    L.set(op.result, Tile(layout, shape, regs))


def _reg(x: ir.Value | Tile | None, key: Key) -> ir.Value | None:
    if x is None:
        return None
    return x.regs[key] if isinstance(x, Tile) else x


def _opt_scalar(L: Lowering, v: Value | None) -> ir.Value | None:
    return None if v is None else L.scalar(v)


def _mem_type(elem: object) -> ir.Type:
    if isinstance(elem, PointerType):
        return I64
    return memory_type(elem)  # type: ignore[arg-type]


def _to_register(b: ir.IRBuilder, v: ir.Value, elem: object) -> ir.Value:
    if isinstance(elem, PointerType):
        return b.inttoptr(v, ir.PointerType(addrspace=elem.address_space))
    if getattr(elem, "bits", 0) == 1:
        return b.trunc(v, I1)
    return v


def _to_memory(b: ir.IRBuilder, v: ir.Value, elem: object) -> ir.Value:
    if isinstance(elem, PointerType):
        return b.ptrtoint(v, I64)
    if getattr(elem, "bits", 0) == 1:
        return b.zext(v, I8)
    return v


def _load_one(
    L: Lowering,
    ptr: ir.Value,
    pred: ir.Value | None,
    other: ir.Value | None,
    elem: object,
    mem_ty: ir.Type,
    access: Access,
    n: int,
) -> list[ir.Value]:
    return _load_group(
        L, ptr, pred, [other] if other is not None else None, elem, mem_ty, access, n
    )


def _load_group(
    L: Lowering,
    ptr: ir.Value,
    pred: ir.Value | None,
    others: list | None,
    elem: object,
    mem_ty: ir.Type,
    access: Access,
    n: int,
) -> list[ir.Value]:
    b = L.b
    if pred is None and access.plain:
        ty = ir.VectorType(mem_ty, n) if n > 1 else mem_ty
        loaded = b.load(ptr, typ=ty, align=n * type_bytes(mem_ty))
        vals = (
            [b.extract_element(loaded, ir.Constant(I32, i)) for i in range(n)]
            if n > 1
            else [loaded]
        )
    else:
        if pred is None:
            pred = ir.Constant(I1, 1)
        zero = ir.Constant(mem_ty, 0 if isinstance(mem_ty, ir.IntType) else 0.0)
        mem_others = [_to_memory(b, o, elem) for o in others] if others is not None else [zero] * n
        vals = L.target.masked_load(b, ptr, pred, mem_others, mem_ty, access)
    return [_to_register(b, v, elem) for v in vals]


def _store(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.StoreOp)
    elem = _pointee(op.ptr).element
    mem_ty = _mem_type(elem)
    access = _access(op)
    if not isinstance(op.value.type, TileType):
        _store_scalar(L, op, elem, mem_ty, access)
        return
    layout = L.tile(op.ptr).layout
    shape = op.value.type.shape
    groups = vector_groups(
        layout, shape, vector_width(L.axis, op.ptr, op.mask, layout, shape, L.target.vector_bytes)
    )
    ptrs = L.pointers(op.ptr, layout, [g[0] for g in groups])
    vals = L.tile(op.value, layout)
    mask = L.value(op.mask, layout) if op.mask is not None else None
    owner = L.owner_mask(layout, shape)
    for group in groups:
        items = [_to_memory(L.b, vals.regs[k], elem) for k in group]
        pred = _reg(mask, group[0])
        if owner is not None:
            pred = owner if pred is None else L.b.and_(pred, owner)
        ptr = ptrs.regs[group[0]]
        if pred is None and access.plain:
            _plain_store(L.b, ptr, items, mem_ty)
        else:
            always = ir.Constant(I1, 1)
            pred = pred if pred is not None else always
            L.target.masked_store(L.b, ptr, pred, items, mem_ty, access)


def _store_scalar(
    L: Lowering, op: O.StoreOp, elem: object, mem_ty: ir.Type, access: Access
) -> None:
    """A scalar store happens once, from thread 0."""
    pred = L.first_thread()
    if op.mask is not None:
        pred = L.b.and_(pred, L.scalar(op.mask))
    value = _to_memory(L.b, L.scalar(op.value), elem)
    L.target.masked_store(L.b, L.scalar(op.ptr), pred, [value], mem_ty, access)


def _plain_store(b: ir.IRBuilder, ptr: ir.Value, items: list[ir.Value], mem_ty: ir.Type) -> None:
    n = len(items)
    if n == 1:
        b.store(items[0], ptr, align=type_bytes(mem_ty))
        return
    vec = ir.Constant(ir.VectorType(mem_ty, n), None)
    for i, v in enumerate(items):
        vec = b.insert_element(vec, v, ir.Constant(I32, i))
    b.store(vec, ptr, align=n * type_bytes(mem_ty))


RULES: dict[type, Rule] = {O.LoadOp: _load, O.StoreOp: _store}
