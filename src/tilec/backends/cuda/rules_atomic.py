"""Atomics as predicated inline PTX ``atom`` with the requested semantics and scope.

Each element is updated once: replicated copies are masked off with the layout's owner mask. A
scalar atomic runs in thread 0 between barriers and its old value reaches every thread through
shared memory, so spin-lock loops on ``atomic_cas`` see one answer and a releasing ``atomic_xchg``
publishes the whole block's stores. Float min/max use the integer
ordering trick (PTX has no f32 atom.min/max before sm_90).
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.core import Op
from ...ir.types import Kind, PointerType, ScalarType, TileType, element_of
from . import intrinsics as intr
from .lowering import Lowering, Rule, Tile
from .types import I1

_SEM = {"acq_rel": ".acq_rel", "acquire": ".acquire", "release": ".release", "relaxed": ".relaxed"}
_SCOPE = {"gpu": ".gpu", "cta": ".cta", "sys": ".sys"}
_BITWISE = {
    O.AtomicKind.AND: "and",
    O.AtomicKind.OR: "or",
    O.AtomicKind.XOR: "xor",
    O.AtomicKind.XCHG: "exch",
}


def _ptx_op(kind: O.AtomicKind, elem: ScalarType) -> tuple[str, str]:
    """(operation, type suffix) for ``atom``."""
    bits = elem.bits
    if bits not in (32, 64):
        raise UnsupportedFeature(f"atomic {kind.value} on {elem} (32- and 64-bit types only)")
    if kind in _BITWISE:
        return _BITWISE[kind], f"b{bits}"
    if kind is O.AtomicKind.ADD:
        return "add", (f"f{bits}" if elem.is_floating() else f"u{bits}")
    if elem.is_floating():
        raise UnsupportedFeature(f"atomic {kind.value} on floats is lowered by _float_minmax")
    sign = "s" if elem.kind is Kind.SINT else "u"
    return kind.value, f"{sign}{bits}"


def _constraint(bits: int, floating: bool) -> str:
    if floating:
        return "f" if bits == 32 else "d"
    return "r" if bits == 32 else "l"


def atom(
    L: Lowering,
    kind: O.AtomicKind,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    sem: str,
    scope: str,
) -> ir.Value:
    if elem.is_floating() and kind in (O.AtomicKind.MAX, O.AtomicKind.MIN):
        return _float_minmax(L, kind, ptr, val, pred, elem, sem, scope)
    if elem.is_floating() and elem.bits == 16 and kind is O.AtomicKind.ADD:
        return _half_add(L, ptr, val, pred, elem, sem, scope)
    op, suffix = _ptx_op(kind, elem)
    con = _constraint(elem.bits, elem.is_floating() and kind is O.AtomicKind.ADD)
    if con in "fd" and kind is not O.AtomicKind.ADD:
        con = "r" if elem.bits == 32 else "l"
    text = f"mov.b{elem.bits} $0, 0; @$2 atom{_SEM[sem]}{_SCOPE[scope]}.global.{op}.{suffix} $0, [$1], $3;"
    if con in "rl" and not isinstance(val.type, ir.IntType):
        ival = L.b.bitcast(val, ir.IntType(elem.bits))
        old = intr.asm(L.b, ival.type, text, f"={con},l,b,{con}", [ptr, pred, ival])
        return L.b.bitcast(old, val.type)
    return intr.asm(L.b, val.type, text, f"={con},l,b,{con}", [ptr, pred, val])


def _half_add(
    L: Lowering,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    sem: str,
    scope: str,
) -> ir.Value:
    """``atom.add.noftz`` on f16 (sm_70+) or bf16 (sm_90+)."""
    kind = "bf16" if elem.is_bf16() else "f16"
    if kind == "bf16" and L.arch < 90:
        raise UnsupportedFeature("atomic add on bf16 needs sm_90 or newer")
    text = (
        f"mov.b16 $0, 0; @$2 atom{_SEM[sem]}{_SCOPE[scope]}.global.add.noftz.{kind} $0, [$1], $3;"
    )
    bits = L.b.bitcast(val, ir.IntType(16))
    old = intr.asm(L.b, ir.IntType(16), text, "=h,l,b,h", [ptr, pred, bits])
    return L.b.bitcast(old, val.type)


def _float_minmax(
    L: Lowering,
    kind: O.AtomicKind,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    sem: str,
    scope: str,
) -> ir.Value:
    """max(x) = signed int max for x >= 0, unsigned int min for x < 0 (IEEE bit order)."""
    b = L.b
    ity = ir.IntType(elem.bits)
    bits = b.bitcast(val, ity)
    negative = b.icmp_signed("<", bits, ir.Constant(ity, 0))
    sint = ScalarType(f"i{elem.bits}", Kind.SINT, elem.bits)
    uint = ScalarType(f"u{elem.bits}", Kind.UINT, elem.bits)
    is_max = kind is O.AtomicKind.MAX
    pos_kind, neg_kind = (
        (O.AtomicKind.MAX, O.AtomicKind.MIN) if is_max else (O.AtomicKind.MIN, O.AtomicKind.MAX)
    )
    pos = atom(L, pos_kind, ptr, bits, b.and_(pred, b.not_(negative)), sint, sem, scope)
    neg = atom(L, neg_kind, ptr, bits, b.and_(pred, negative), uint, sem, scope)
    return b.bitcast(b.select(negative, neg, pos), val.type)


def cas(
    L: Lowering,
    ptr: ir.Value,
    cmp: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    sem: str,
    scope: str,
) -> ir.Value:
    if elem.bits not in (16, 32, 64):
        raise UnsupportedFeature(f"atomic_cas on {elem}")
    con = {16: "h", 32: "r", 64: "l"}[elem.bits]
    ity = ir.IntType(elem.bits)
    ci, vi = (x if isinstance(x.type, ir.IntType) else L.b.bitcast(x, ity) for x in (cmp, val))
    text = f"mov.b{elem.bits} $0, 0; @$2 atom{_SEM[sem]}{_SCOPE[scope]}.global.cas.b{elem.bits} $0, [$1], $3, $4;"
    old = intr.asm(L.b, ity, text, f"={con},l,b,{con},{con}", [ptr, pred, ci, vi])
    return old if isinstance(val.type, ir.IntType) else L.b.bitcast(old, val.type)


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
    elem = _elem(op)
    _run(L, op, lambda p, a, m: atom(L, op.kind, p, a[0], m, elem, op.sem, op.scope))


def _cas(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.AtomicCASOp)
    elem = _elem(op)
    _run(L, op, lambda p, a, m: cas(L, p, a[0], a[1], m, elem, op.sem, op.scope))


RULES: dict[type, Rule] = {O.AtomicRMWOp: _rmw, O.AtomicCASOp: _cas}
