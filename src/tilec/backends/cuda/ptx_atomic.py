"""Atomics as predicated inline PTX ``atom`` (a helper of target_info.NvptxTarget).

One instruction per element with the requested semantics and scope, under a predicate (``@p``,
the ``b`` constraint); a masked-off lane reads 0. Float min/max use the integer ordering trick
(PTX has no f32 atom.min/max before sm_90); f16 adds are ``atom.add.noftz`` (bf16 from sm_90).
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir import ops as O
from ...ir.types import Kind, ScalarType
from . import intrinsics as intr


def _qualifiers(order: O.Ordering) -> str:
    """``atom``'s semantic and scope qualifiers (``.acq_rel.gpu``): PTX spells tl's names."""
    return f".{order.sem.value}.{order.scope.value}"


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
    b: ir.IRBuilder,
    arch: int,
    kind: O.AtomicKind,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    order: O.Ordering,
) -> ir.Value:
    if elem.is_floating() and kind in (O.AtomicKind.MAX, O.AtomicKind.MIN):
        return _float_minmax(b, arch, kind, ptr, val, pred, elem, order)
    if elem.is_floating() and elem.bits == 16 and kind is O.AtomicKind.ADD:
        return _half_add(b, arch, ptr, val, pred, elem, order)
    op, suffix = _ptx_op(kind, elem)
    con = _constraint(elem.bits, elem.is_floating() and kind is O.AtomicKind.ADD)
    if con in "fd" and kind is not O.AtomicKind.ADD:
        con = "r" if elem.bits == 32 else "l"
    text = (
        f"mov.b{elem.bits} $0, 0; @$2 atom{_qualifiers(order)}.global.{op}.{suffix} $0, [$1], $3;"
    )
    if con in "rl" and not isinstance(val.type, ir.IntType):
        ival = b.bitcast(val, ir.IntType(elem.bits))
        old = intr.asm(b, ival.type, text, f"={con},l,b,{con}", [ptr, pred, ival])
        return b.bitcast(old, val.type)
    return intr.asm(b, val.type, text, f"={con},l,b,{con}", [ptr, pred, val])


def _half_add(
    b: ir.IRBuilder,
    arch: int,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    order: O.Ordering,
) -> ir.Value:
    """``atom.add.noftz`` on f16 (sm_70+) or bf16 (sm_90+)."""
    kind = "bf16" if elem.is_bf16() else "f16"
    if kind == "bf16" and arch < 90:
        raise UnsupportedFeature("atomic add on bf16 needs sm_90 or newer")
    text = f"mov.b16 $0, 0; @$2 atom{_qualifiers(order)}.global.add.noftz.{kind} $0, [$1], $3;"
    bits = b.bitcast(val, ir.IntType(16))
    old = intr.asm(b, ir.IntType(16), text, "=h,l,b,h", [ptr, pred, bits])
    return b.bitcast(old, val.type)


def _float_minmax(
    b: ir.IRBuilder,
    arch: int,
    kind: O.AtomicKind,
    ptr: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    order: O.Ordering,
) -> ir.Value:
    """max(x) = signed int max for x >= 0, unsigned int min for x < 0 (IEEE bit order)."""
    ity = ir.IntType(elem.bits)
    bits = b.bitcast(val, ity)
    negative = b.icmp_signed("<", bits, ir.Constant(ity, 0))
    sint = ScalarType(f"i{elem.bits}", Kind.SINT, elem.bits)
    uint = ScalarType(f"u{elem.bits}", Kind.UINT, elem.bits)
    is_max = kind is O.AtomicKind.MAX
    pos_kind, neg_kind = (
        (O.AtomicKind.MAX, O.AtomicKind.MIN) if is_max else (O.AtomicKind.MIN, O.AtomicKind.MAX)
    )
    pos = atom(b, arch, pos_kind, ptr, bits, b.and_(pred, b.not_(negative)), sint, order)
    neg = atom(b, arch, neg_kind, ptr, bits, b.and_(pred, negative), uint, order)
    return b.bitcast(b.select(negative, neg, pos), val.type)


def cas(
    b: ir.IRBuilder,
    ptr: ir.Value,
    cmp: ir.Value,
    val: ir.Value,
    pred: ir.Value,
    elem: ScalarType,
    order: O.Ordering,
) -> ir.Value:
    if elem.bits not in (16, 32, 64):
        raise UnsupportedFeature(f"atomic_cas on {elem}")
    con = {16: "h", 32: "r", 64: "l"}[elem.bits]
    ity = ir.IntType(elem.bits)
    ci, vi = (x if isinstance(x.type, ir.IntType) else b.bitcast(x, ity) for x in (cmp, val))
    text = f"mov.b{elem.bits} $0, 0; @$2 atom{_qualifiers(order)}.global.cas.b{elem.bits} $0, [$1], $3, $4;"
    old = intr.asm(b, ity, text, f"={con},l,b,{con},{con}", [ptr, pred, ci, vi])
    return old if isinstance(val.type, ir.IntType) else b.bitcast(old, val.type)
