"""device_print through the target's printf, device_assert through its assert (``vprintf``
and ``__assertfail`` on NVPTX), and the bounds check of debug mode.

Each thread prints or checks only the elements it owns, so every element appears once. A failed
assert traps the kernel (the driver reports CUDA_ERROR_ASSERT); its message and location are
also recorded in KernelMetadata.asserts. A failed bounds check does not trap (the context stays
usable): the first one stores its record and every out-of-bounds lane is masked off, while the
program runs on (leaving early could strand the other threads at a barrier).
"""

from __future__ import annotations

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import TileType, element_of
from ...artifacts import AssertInfo
from ...llvm import printf
from ...llvm.bounds_record import linear_program_id, record_first
from ..lowering import Lowering, Rule, Tile
from ..types import I1, I64


def _printf(L: Lowering, fmt: str, args: list[ir.Value]) -> None:
    L.target.printf(L.b, L.prologue, L.global_string(fmt), args)


def _print(L: Lowering, op: Op) -> None:
    """Triton's lines: ``pid (x, y, z) idx (i, j)<prefix><value>``; the frontend has given the
    prefix its spaces and colon (frontend/builtins_debug.print_prefix)."""
    assert isinstance(op, O.PrintOp)
    pid = [L.target.program_id(L.b, axis) for axis in range(3)]
    if not op.operands:
        _printf(L, printf.line(op.prefix, None), pid)
    for k, v in enumerate(op.operands):
        conv = printf.conversion(element_of(v.type), op.hex)
        operand = k if len(op.operands) > 1 else -1
        got = L.env[v]
        if not isinstance(got, Tile):
            args = [*pid, printf.promote(L.b, got, conv.promote, L.target.generic_ptr)]
            _printf(L, printf.line(op.prefix, (), conv.text, operand), args)
            continue
        owner = L.owner_mask(got.layout, got.shape)
        fmt = printf.line(op.prefix, got.shape, conv.text, operand)
        for key, reg in got.regs.items():
            coords = L.coord(got.layout, got.shape, key)
            value = printf.promote(L.b, reg, conv.promote, L.target.generic_ptr)
            args = [*pid, *coords, value]
            if owner is None:
                _printf(L, fmt, args)
            else:
                with L.b.if_then(owner):
                    _printf(L, fmt, args)


def _assert(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.AssertOp)
    loc = op.loc
    location = str(loc)
    L.asserts.append(AssertInfo(op.message, location))
    got = L.env[op.operands[0]]
    conds = list(got.regs.values()) if isinstance(got, Tile) else [got]
    owner = L.owner_mask(got.layout, got.shape) if isinstance(got, Tile) else None
    failed: ir.Value = ir.Constant(I1, 0)
    for c in conds:
        failed = L.b.or_(failed, L.b.not_(c))
    if owner is not None:
        failed = L.b.and_(failed, owner)
    with L.b.if_then(failed, likely=False):
        message, file = L.global_string(op.message), L.global_string(str(loc.file))
        L.target.assert_fail(L.b, message, file, loc.line, L.global_string("kernel"))


def _lane_check(
    b: ir.IRBuilder, op: O.BoundsCheckOp, ptr: ir.Value, active: ir.Value, ext: list[ir.Value]
) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(may access, is an active lane out of bounds, address as i64) for one register."""
    addr = b.ptrtoint(ptr, I64)
    end = b.add(addr, ir.Constant(I64, op.access_bytes))
    ok: ir.Value = ir.Constant(I1, 0)
    for lo, hi in zip(ext[::2], ext[1::2]):
        inside = b.and_(
            b.and_(b.icmp_unsigned(">=", addr, lo), b.icmp_unsigned("<", addr, hi)),
            b.icmp_unsigned("<=", end, hi),
        )
        ok = b.or_(ok, inside)
    return b.and_(active, ok), b.and_(active, b.not_(ok)), addr


def _bounds_check(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.BoundsCheckOp)
    b = L.b
    ext = [L.scalar(v) for pair in op.extents for v in pair]
    true = ir.Constant(I1, 1)
    checks: list[tuple[ir.Value, ir.Value, ir.Value]] = []
    result = op.results[0]
    if isinstance(result.type, TileType):
        layout = L.want(result)
        ptrs = L.tile(op.ptr, layout)
        mask = L.value(op.mask, layout) if op.mask is not None else None
        regs = {}
        for key in L.keys(layout, result.type.shape):
            active = mask.regs[key] if isinstance(mask, Tile) else (mask or true)
            checks.append(_lane_check(b, op, ptrs.regs[key], active, ext))
            regs[key] = checks[-1][0]
        L.set(result, Tile(layout, result.type.shape, regs))
    else:
        active = L.scalar(op.mask) if op.mask is not None else true
        checks.append(_lane_check(b, op, L.scalar(op.ptr), active, ext))
        L.set(result, checks[0][0])
    failed: ir.Value = ir.Constant(I1, 0)
    address: ir.Value = ir.Constant(I64, 0)
    for _, bad, addr in reversed(checks):  # the first offending register's address wins
        failed = b.or_(failed, bad)
        address = b.select(bad, addr, address)
    with b.if_then(failed, likely=False):
        _record(L, op, address)


def _record(L: Lowering, op: O.BoundsCheckOp, address: ir.Value) -> None:
    """The first failing thread of the launch stores (code, linear program id, address)."""
    b, target = L.b, L.target

    def linear() -> ir.Value:
        pid = [target.program_id(b, axis) for axis in range(3)]
        return linear_program_id(b, pid, [target.num_programs(b, axis) for axis in range(2)])

    record_first(b, L.scalar(op.record), op.code, "monotonic", linear, address)


RULES: dict[type, Rule] = {
    O.PrintOp: _print,
    O.AssertOp: _assert,
    O.BoundsCheckOp: _bounds_check,
}
