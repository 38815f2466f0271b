"""Atomics: the target's predicated atomic per element, with the requested semantics and scope
(inline PTX ``atom`` on NVPTX: ptx_atomic.py).

Each element is updated once: replicated copies are masked off with the layout's owner mask. A
scalar atomic runs in thread 0 between barriers and its old value reaches every thread through
shared memory, so spin-lock loops on ``atomic_cas`` see one answer and a releasing ``atomic_xchg``
publishes the whole block's stores.
"""

from __future__ import annotations

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import PointerType, ScalarType, TileType, element_of
from ..lowering import Lowering, Rule, Tile
from ..types import I1


def _elem(op: Op) -> ScalarType:
    ptr_elem = element_of(op.operands[0].type)
    assert isinstance(ptr_elem, PointerType) and isinstance(ptr_elem.element, ScalarType)
    return ptr_elem.element


def _run(L: Lowering, op: Op, emit) -> None:  # type: ignore[no-untyped-def]
    """Apply ``emit(ptr, operands, pred)`` per owned element (tiles) or once (scalars)."""
    n_data = len(op.operands) - 1
    mask_v = op.operands[-1] if isinstance(op, O.AtomicRMWOp) and op.mask is not None else None
    data = op.operands[1 : 1 + n_data - (1 if mask_v is not None else 0)]
    result = op.result
    if not isinstance(result.type, TileType):
        # the barrier lets thread 0's release cover every thread's earlier stores (cumulativity)
        L.barrier()
        pred = L.first_thread()
        if mask_v is not None:
            pred = L.b.and_(pred, L.scalar(mask_v))
        old = emit(L.scalar(op.operands[0]), [L.scalar(v) for v in data], pred)
        L.set(result, _broadcast_from_thread0(L, old))
        return
    layout, shape = L.want(result), result.type.shape
    ptrs = L.tile(op.operands[0], layout)
    vals = [L.value(v, layout) for v in data]
    mask = L.value(mask_v, layout) if mask_v is not None else None
    owner = L.owner_mask(layout, shape)
    regs = {}
    for key in L.keys(layout, shape):
        pred = owner if owner is not None else ir.Constant(I1, 1)
        if mask is not None:
            pred = L.b.and_(pred, mask.regs[key] if isinstance(mask, Tile) else mask)
        args = [x.regs[key] if isinstance(x, Tile) else x for x in vals]
        regs[key] = emit(ptrs.regs[key], args, pred)
    L.set(result, Tile(layout, shape, regs))


def _broadcast_from_thread0(L: Lowering, value: ir.Value) -> ir.Value:
    ty = value.type
    store_ty = ty
    base = L.smem(8)
    L.barrier()
    slot = L.b.bitcast(base, base.type)
    with L.b.if_then(L.first_thread()):
        L.b.store(value, slot)
    L.barrier()
    return L.b.load(slot, typ=store_ty)


def _rmw(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.AtomicRMWOp)
    elem, kind, order = _elem(op), op.kind, op.ordering
    _run(L, op, lambda p, a, m: L.target.atomic_rmw(L.b, kind, p, a[0], m, elem, order))


def _cas(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.AtomicCASOp)
    elem, order = _elem(op), op.ordering
    _run(L, op, lambda p, a, m: L.target.atomic_cas(L.b, p, a[0], a[1], m, elem, order))


RULES: dict[type, Rule] = {O.AtomicRMWOp: _rmw, O.AtomicCASOp: _cas}
