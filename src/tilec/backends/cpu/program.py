"""The LLVM module of one kernel: the program function and the ABI entry that loops over ids.

``entry(const uint64_t *args, i32 gx, i32 gy, i32 gz, i64 begin, i64 end, i64 *status)`` runs the
programs with linear ids begin..end-1 (id = x + gx*(y + gy*z)) and stops early once a
device_assert has failed (status[0] != 0). Each argument slot holds one runtime parameter in its
low bytes (little-endian), so the program loads it with its own type.
"""

from __future__ import annotations

import re

from llvmlite import ir

from ...ir.argspec import ArgSpec
from ...ir.ops import FuncOp
from ...ir.types import ScalarType
from ..artifacts import AssertInfo
from ..llvm import machine
from ..llvm import types as T
from . import aliasing, int_ranges
from .lower import Lowering
from .matmul import vector_registers, vector_width
from .nest import counted_loop
from .rules import RULES
from .scalar import has_native_half, native_half
from .tiles import storage

PROGRAM_ARGS = [T.ptr, T.i32, T.i32, T.i32, T.i32, T.i32, T.i32, T.ptr]
ENTRY_ARGS = [T.ptr, T.i32, T.i32, T.i32, T.i64, T.i64, T.ptr]


def entry_symbol(kernel_name: str) -> str:
    return "tilec_" + re.sub(r"[^A-Za-z0-9_]", "_", kernel_name)


def _load_param(b: ir.IRBuilder, args: ir.Value, i: int, spec: ArgSpec) -> ir.Value:
    slot = b.gep(args, [ir.Constant(T.i64, i)], source_etype=T.i64)
    t = spec.type
    if isinstance(t, ScalarType) and t.is_bool():
        return b.icmp_unsigned("!=", b.load(slot, typ=T.i8), ir.Constant(T.i8, 0))
    return b.load(slot, typ=storage(t))  # type: ignore[arg-type]


def build_module(
    func: FuncOp, triple: str, data_layout: str = "", features: str = "", num_warps: int = 1
) -> tuple[ir.Module, str, list[AssertInfo]]:
    """Lower ``func`` into a new module; returns (module, entry symbol, assert sites).
    ``num_warps``: the launch option, which only device_print reads (a scalar prints once per
    thread of a GPU's launch).

    Where integer facts that change the code hold only for grids of at most ``small_grid``
    programs per axis (int_ranges.plan), the module holds a second program for those grids and
    the entry picks one by the grid it is given."""
    module = ir.Module(name=func.sym_name)
    module.triple = triple
    if data_layout:
        module.data_layout = data_layout
    plan = int_ranges.plan(func)
    programs: list[tuple[int | None, ir.Function]] = []
    asserts: list[AssertInfo] = []
    variants = [(plan.small_grid, plan.small)] if plan.small is not None else []
    for grid, facts in [*variants, (None, plan.general)]:
        program, asserts = _build_program(module, func, triple, features, facts, num_warps)
        programs.append((grid, program))
    symbol = entry_symbol(func.sym_name)
    _build_entry(module, programs, symbol)
    attributes = machine.vector_width_attributes(features)
    for fn in module.functions:
        if not fn.is_declaration:  # the programs are inlined: their caller needs them too
            for attr in attributes:
                set.add(fn.attributes, attr)  # llvmlite's set takes only names it knows
    return module, symbol, asserts


def _build_program(
    module: ir.Module,
    func: FuncOp,
    triple: str,
    features: str,
    facts: int_ranges.IntFacts,
    num_warps: int,
) -> tuple[ir.Function, list[AssertInfo]]:
    fn_type = ir.FunctionType(T.void, PROGRAM_ARGS)
    program = ir.Function(module, fn_type, module.get_unique_name("tilec.program"))
    program.linkage = "internal"
    lw = Lowering(
        func,
        program,
        RULES,
        vector_width(features),
        vector_registers(features, triple),
        facts,
        num_warps,
    )
    for i, (spec, arg) in enumerate(zip(func.specs, func.args)):
        lw.env[arg] = _load_param(lw.b, lw.args_ptr, i, spec)
    with native_half(has_native_half(triple, features)):
        lw.run()
    aliasing.annotate(program)
    return program, lw.asserts


def _build_entry(
    module: ir.Module, programs: list[tuple[int | None, ir.Function]], symbol: str
) -> None:
    """The entry runs the first program whose grid bound (None: any grid) the grid keeps."""
    entry = ir.Function(module, ir.FunctionType(T.void, ENTRY_ARGS), symbol)
    gx, gy, gz = entry.args[1:4]
    b = ir.IRBuilder(entry.append_basic_block("start"))
    stop = entry.append_basic_block("stop")
    slots = [b.alloca(T.i32) for _ in range(3)]  # the ids, in the entry block for mem2reg
    for bound, program in programs:
        if bound is None:
            _run_programs(b, entry, program, slots, stop)
            break
        limit = ir.Constant(T.i32, bound)
        fits = b.and_(
            b.and_(b.icmp_unsigned("<=", gx, limit), b.icmp_unsigned("<=", gy, limit)),
            b.icmp_unsigned("<=", gz, limit),
        )
        here, other = entry.append_basic_block("grid.fits"), entry.append_basic_block("grid.other")
        b.cbranch(fits, here, other)
        b.position_at_end(here)
        _run_programs(b, entry, program, slots, stop)
        b.position_at_end(other)
    b.position_at_end(stop)
    b.ret_void()


def _run_programs(
    b: ir.IRBuilder,
    entry: ir.Function,
    program: ir.Function,
    slots: list[ir.AllocaInstr],
    stop: ir.Block,
) -> None:
    """Programs begin..end-1 in order, stopping once a device_assert has failed."""
    args, gx, gy, gz, begin, end, status = entry.args
    gx64, gy64 = b.zext(gx, T.i64), b.zext(gy, T.i64)
    # (x, y, z) of the first program by division, then counted up: no division per program
    rest = b.udiv(begin, gx64)
    start_ids = [b.urem(begin, gx64), b.urem(rest, gy64), b.udiv(rest, gy64)]
    for slot, v in zip(slots, start_ids):
        b.store(b.trunc(v, T.i32), slot)
    with counted_loop(b, begin, end, "pid"):
        ids = [b.load(slot, typ=T.i32) for slot in slots]
        b.call(program, [args, *ids, gx, gy, gz, status])
        failed = b.icmp_unsigned(
            "!=", b.load_atomic(status, "monotonic", 8, typ=T.i64), ir.Constant(T.i64, 0)
        )
        go_on = entry.append_basic_block("next")
        b.cbranch(failed, stop, go_on)
        b.position_at_end(go_on)
        _next_ids(b, ids, slots, gx, gy)
    b.branch(stop)


def _next_ids(
    b: ir.IRBuilder, ids: list[ir.Value], slots: list[ir.Value], gx: ir.Value, gy: ir.Value
) -> None:
    one, zero = ir.Constant(T.i32, 1), ir.Constant(T.i32, 0)
    x1 = b.add(ids[0], one)
    wrap_x = b.icmp_unsigned(">=", x1, gx)
    y1 = b.select(wrap_x, b.add(ids[1], one), ids[1])
    wrap_y = b.icmp_unsigned(">=", y1, gy)
    b.store(b.select(wrap_x, zero, x1), slots[0])
    b.store(b.select(wrap_y, zero, y1), slots[1])
    b.store(b.select(wrap_y, b.add(ids[2], one), ids[2]), slots[2])
