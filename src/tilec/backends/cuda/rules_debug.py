"""device_print through ``vprintf`` and device_assert through ``__assertfail``.

Each thread prints or checks only the elements it owns, so every element appears once. A failed
assert traps the kernel (the driver reports CUDA_ERROR_ASSERT); its message and location are
also recorded in KernelMetadata.asserts.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Op
from ...ir.types import PointerType, ScalarType, element_of
from ..artifacts import AssertInfo
from . import intrinsics as intr
from .lowering import Lowering, Rule, Tile
from .types import F64, GENERIC_PTR, I1, I32, I64, VOID, is_float


def _format(elem: object, hex_: bool) -> tuple[str, str]:
    """(printf conversion, how the value is widened: 'f64', 'i32s', 'i32u', 'i64', 'ptr')."""
    if isinstance(elem, PointerType):
        return "%p", "ptr"
    assert isinstance(elem, ScalarType)
    if elem.is_floating():
        return ("%a" if hex_ else "%f"), "f64"
    if elem.bits == 64:
        return ("0x%llx" if hex_ else ("%lld" if elem.is_int_signed() else "%llu")), "i64"
    if hex_:
        return "0x%x", "i32u"
    return ("%d", "i32s") if elem.is_int_signed() else ("%u", "i32u")


def _widen(b: ir.IRBuilder, v: ir.Value, how: str) -> ir.Value:
    if how == "f64":
        return b.fpext(v, F64) if v.type != F64 else v
    if how == "ptr":
        return b.addrspacecast(v, GENERIC_PTR) if v.type != GENERIC_PTR else v
    target = I64 if how == "i64" else I32
    if v.type == target:
        return v
    if is_float(v.type):
        return b.bitcast(v, ir.IntType(v.type.width if hasattr(v.type, "width") else 32))
    return b.sext(v, target) if how == "i32s" and v.type != I1 else b.zext(v, target)


def _vprintf(L: Lowering, fmt: str, args: list[ir.Value]) -> None:
    b = L.b
    fn = intr.declare(b, "vprintf", I32, [GENERIC_PTR, GENERIC_PTR])
    if args:
        struct = ir.LiteralStructType([a.type for a in args])
        buf = _alloca(L, struct)
        for i, a in enumerate(args):
            b.store(a, b.gep(buf, [ir.Constant(I32, 0), ir.Constant(I32, i)], source_etype=struct))
        argp = buf
    else:
        argp = ir.Constant(GENERIC_PTR, None)
    b.call(fn, [L.global_string(fmt), argp])


def _alloca(L: Lowering, ty: ir.Type) -> ir.Value:
    """A stack slot allocated in the prologue (allocas outside the entry block defeat SROA)."""
    slot = L.prologue.alloca(ty)
    slot.type = GENERIC_PTR  # opaque, so GEPs into the struct can store each field
    return slot


def _print(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.PrintOp)
    pid = [intr.sreg(L.b, f"ctaid.{a}") for a in "xyz"]
    if not op.operands:
        _vprintf(L, f"pid (%u, %u, %u) {op.prefix}\n", pid)
    for v in op.operands:
        conv, how = _format(element_of(v.type), op.hex)
        got = L.env[v]
        if not isinstance(got, Tile):
            _vprintf(L, f"pid (%u, %u, %u) {op.prefix}{conv}\n", [*pid, _widen(L.b, got, how)])
            continue
        owner = L.owner_mask(got.layout, got.shape)
        idx_fmt = ", ".join(["%u"] * len(got.shape))
        for key, reg in got.regs.items():
            coords = L.coord(got.layout, got.shape, key)
            args = [*pid, *coords, _widen(L.b, reg, how)]
            fmt = f"pid (%u, %u, %u) idx ({idx_fmt}) {op.prefix}{conv}\n"
            if owner is None:
                _vprintf(L, fmt, args)
            else:
                with L.b.if_then(owner):
                    _vprintf(L, fmt, args)


def _assert(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.AssertOp)
    loc = op.loc
    location = str(loc)
    L.asserts.append(AssertInfo(op.message, location))
    got = L.env[op.operands[0]]
    conds = list(got.regs.values()) if isinstance(got, Tile) else [got]
    owner = L.owner_mask(got.layout, got.shape) if isinstance(got, Tile) else None
    fn = intr.declare(L.b, "__assertfail", VOID, [GENERIC_PTR, GENERIC_PTR, I32, GENERIC_PTR, I64])
    failed: ir.Value = ir.Constant(I1, 0)
    for c in conds:
        failed = L.b.or_(failed, L.b.not_(c))
    if owner is not None:
        failed = L.b.and_(failed, owner)
    with L.b.if_then(failed, likely=False):
        args = [
            L.global_string(op.message),
            L.global_string(str(loc.file)),
            ir.Constant(I32, loc.line),
            L.global_string("kernel"),
            ir.Constant(I64, 1),
        ]
        L.b.call(fn, args)


RULES: dict[type, Rule] = {O.PrintOp: _print, O.AssertOp: _assert}
