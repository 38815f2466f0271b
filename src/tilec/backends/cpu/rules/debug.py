"""Rules for device_print (printf from native code), device_assert and the bounds check of
debug mode (both report through the status block).

Print lines follow Triton: ``pid (x, y, z) idx (i, j)<prefix><value>``, one line per element,
flushed after each print op so output interleaves sensibly with Python's. A scalar (and a print
without values) is printed once per thread of the launch, as every GPU thread prints it:
``num_warps`` × the CPU target's warp size of 1 (``GPUTarget("cpu", arch, 1)``). ``printf``
and ``fflush`` are resolved from the C library when the object is loaded.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ....ir import ops as O
from ....ir.types import Element, ScalarType, element_of, int1, shape_of
from ...artifacts import AssertInfo
from ...llvm import types as T
from ...llvm.bounds_record import linear_program_id, record_first
from ...llvm.intrinsics import declare
from ...llvm.printf import Promote, conversion, line, promote
from ..lower import Lowering
from ..nest import counted_loop, each_index, emit_nest, range_form, row_limit
from ..scalar import to_compute
from ..tiles import ConstTile, Index, Scope, Tile


def _c_string(lw: Lowering, text: str) -> ir.Value:
    data = bytearray(text.encode("utf-8")) + b"\0"
    module = lw.b.module
    name = f".str.{len(module.globals)}"
    g = ir.GlobalVariable(module, ir.ArrayType(T.i8, len(data)), name)
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ir.ArrayType(T.i8, len(data)), data)
    return g


def _vararg(b: ir.IRBuilder, x: ir.Value, elem: Element, hex_: bool) -> ir.Value:
    """``x`` as printf takes it (llvm/printf.promote); a float is first taken out of the
    CPU's storage form (fp16/bf16 may be held as integers) unless printed as its bits."""
    how = conversion(elem, hex_).promote
    if how is Promote.DOUBLE:
        assert isinstance(elem, ScalarType)
        x = to_compute(b, x, elem)
    return promote(b, x, how, T.ptr)


def _printf(lw: Lowering, b: ir.IRBuilder, fmt: ir.Value, args: list[ir.Value]) -> None:
    printf = declare(b.module, "printf", T.i32, [T.ptr], var_arg=True)
    b.call(printf, [fmt, *args])


# threads per warp of the CPU target (backends/cpu/driver.py reports the same to Triton hosts)
WARP_SIZE = 1


def _per_thread(lw: Lowering, op: O.PrintOp, fmt: ir.Value, args: list[ir.Value]) -> None:
    """One printf per thread of the launch (``num_warps`` x the CPU target's warp size)."""
    threads = lw.num_warps * WARP_SIZE
    if threads == 1:
        _printf(lw, lw.b, fmt, args)
        return
    b = lw.b
    with counted_loop(b, ir.Constant(T.i64, 0), ir.Constant(T.i64, threads), "print", False, False):
        _printf(lw, b, fmt, args)


def _print(lw: Lowering, op: O.PrintOp) -> None:
    b = lw.b
    pids = list(lw.pid)
    if not op.operands:
        _per_thread(lw, op, _c_string(lw, line(op.prefix, None)), pids)
    for k, v in enumerate(op.operands):
        elem = element_of(v.type)
        operand = k if len(op.operands) > 1 else -1
        text = line(op.prefix, shape_of(v.type), conversion(elem, op.hex).text, operand)
        fmt = _c_string(lw, text)
        x = lw.get(v)
        if not isinstance(x, Tile):
            _per_thread(lw, op, fmt, [*pids, _vararg(b, x, elem, op.hex)])
            continue
        tile = x

        def body(
            s: Scope, idx: Index, tile: Tile = tile, fmt: ir.Value = fmt, elem: Element = elem
        ) -> None:
            val = _vararg(s.b, s.get(tile, idx), elem, op.hex)
            _printf(lw, s.b, fmt, [*pids, *(s.b.trunc(i, T.i32) for i in idx), val])

        emit_nest(b, tile.shape, body)
    fflush = declare(b.module, "fflush", T.i32, [T.ptr])
    b.call(fflush, [ir.Constant(T.ptr, None)])


def _assert(lw: Lowering, op: O.AssertOp) -> None:
    b = lw.b
    x = lw.get(op.operands[0])
    if isinstance(x, Tile):
        ok_slot = lw.slot(T.i1)
        b.store(ir.Constant(T.i1, 1), ok_slot)
        tile = x

        def body(s: Scope, idx: Index) -> None:
            s.b.store(s.b.and_(s.b.load(ok_slot, typ=T.i1), s.get(tile, idx)), ok_slot)

        emit_nest(b, tile.shape, body)
        ok = b.load(ok_slot, typ=T.i1)
    else:
        ok = x
    code = len(lw.asserts) + 1
    lw.asserts.append(AssertInfo(op.message, str(op.loc)))
    fn = b.function
    fail, cont = fn.append_basic_block("assert.fail"), fn.append_basic_block("assert.ok")
    b.cbranch(ok, cont, fail)
    b.position_at_end(fail)
    pair = b.cmpxchg(
        lw.status, ir.Constant(T.i64, 0), ir.Constant(T.i64, code), "seq_cst", "seq_cst"
    )
    won = fn.append_basic_block("assert.first")
    leave = fn.append_basic_block("assert.leave")
    b.cbranch(b.extract_value(pair, 1), won, leave)
    b.position_at_end(won)
    b.store(
        linear_program_id(b, lw.pid, lw.grid),
        b.gep(lw.status, [ir.Constant(T.i64, 1)], source_etype=T.i64),
    )
    b.branch(leave)
    b.position_at_end(leave)
    lw.ret()
    b.position_at_end(cont)


def _limits(b: ir.IRBuilder, op: O.BoundsCheckOp, ext: list[ir.Value]) -> list[ir.Value]:
    """``(lo, count)`` per extent: an access at ``addr`` fits when ``addr - lo <u count``, one
    compare per lane (count = the addresses where ``access_bytes`` still fit, 0 if none)."""
    size = ir.Constant(T.i64, op.access_bytes)
    out: list[ir.Value] = []
    for lo, hi in zip(ext[::2], ext[1::2]):
        span = b.sub(hi, lo)
        fits = b.icmp_unsigned(">=", span, size)
        count = b.select(
            fits, b.add(b.sub(span, size), ir.Constant(T.i64, 1)), ir.Constant(T.i64, 0)
        )
        out += [lo, count]
    return out


def _bad_lane(
    b: ir.IRBuilder, ptr: ir.Value, active: ir.Value, limits: list[ir.Value]
) -> tuple[ir.Value, ir.Value]:
    """(whether this lane is active and out of bounds, its address as i64)."""
    addr = b.ptrtoint(ptr, T.i64)
    ok: ir.Value = ir.Constant(T.i1, 0)
    for lo, count in zip(limits[::2], limits[1::2]):
        ok = b.or_(ok, b.icmp_unsigned("<", b.sub(addr, lo), count))
    return b.and_(active, b.not_(ok)), addr


def _bounds_check(lw: Lowering, op: O.BoundsCheckOp) -> None:
    """One vectorizable pass over the lanes finds whether any active one is out of bounds; only
    then a second finds the first such address, records it and leaves the program (so the
    access never runs). Every lane that gets past the check may be accessed: the result is the
    access's own mask."""
    b = lw.b
    ext = _limits(b, op, [lw.scalar(v) for pair in op.extents for v in pair])
    ptr = lw.get(op.ptr)
    mask = lw.get(op.mask) if op.mask is not None else None
    true = ir.Constant(T.i1, 1)
    if not isinstance(ptr, Tile):
        active = mask if mask is not None else true
        assert not isinstance(active, Tile)
        bad, addr = _bad_lane(b, ptr, active, ext)
        _record_if(lw, op, bad, addr)
        lw.define(op.result, active)
        return
    shape = ptr.shape
    mask_tile = lw.tile_of(mask, op.mask.type) if op.mask is not None and mask is not None else None
    any_slot, addr_slot = lw.slot(T.i1), lw.slot(T.i64)
    b.store(ir.Constant(T.i1, 0), any_slot)
    b.store(ir.Constant(T.i64, 0), addr_slot)

    def lane(s: Scope, idx: Index) -> tuple[ir.Value, ir.Value]:
        active = s.get(mask_tile, idx) if mask_tile is not None else true
        return _bad_lane(s.b, s.get(ptr, idx), active, ext)

    def scan(s: Scope, idx: Index) -> None:
        s.b.store(s.b.or_(s.b.load(any_slot, typ=T.i1), lane(s, idx)[0]), any_slot)

    def first(s: Scope, idx: Index) -> None:
        bad, addr = lane(s, idx)
        seen = s.b.load(any_slot, typ=T.i1)
        take = s.b.and_(bad, s.b.not_(seen))
        s.b.store(s.b.select(take, addr, s.b.load(addr_slot, typ=T.i64)), addr_slot)
        s.b.store(s.b.or_(seen, bad), any_slot)

    if not _scan_affine_rows(lw, op, ptr, mask_tile, ext, any_slot):
        emit_nest(b, shape, scan)
    fn = b.function
    fail, cont = fn.append_basic_block("bounds.fail"), fn.append_basic_block("bounds.ok")
    b.cbranch(b.load(any_slot, typ=T.i1), fail, cont)
    b.position_at_end(fail)
    b.store(ir.Constant(T.i1, 0), any_slot)
    emit_nest(b, shape, first)
    _record(lw, op, b.load(addr_slot, typ=T.i64))
    lw.ret()
    b.position_at_end(cont)
    lw.define(op.result, mask_tile if mask_tile is not None else _all_true(shape))


def _scan_affine_rows(
    lw: Lowering,
    op: O.BoundsCheckOp,
    ptr: Tile,
    mask: Tile | None,
    ext: list[ir.Value],
    any_slot: ir.Value,
) -> bool:
    """Rows whose addresses are affine (a known stride) in O(1) each: the accessed bytes lie
    between the first and the last lane's, and one extent is an interval, so checking those
    two lanes checks the row. The lanes are the active prefix under no mask or a range mask
    (``offs < n``); under another mask, the whole row, and only a row that fails that goes
    lane by lane (its masked-off lanes may lie outside). False when it does not apply."""
    form = range_form(mask) if mask is not None else None
    if ptr.stride() is None or op.n_extents != 1:
        return False
    b, n = lw.b, ptr.shape[-1]

    def ends_bad(s: Scope, outer: Index, lim: ir.Value) -> ir.Value:
        some = s.b.icmp_signed(">", lim, s.zero)
        last = s.b.select(some, s.b.sub(lim, s.const(1)), s.zero)
        first_bad, _ = _bad_lane(s.b, s.get(ptr, (*outer, s.zero)), some, ext)
        last_bad, _ = _bad_lane(s.b, s.get(ptr, (*outer, last)), some, ext)
        return s.b.or_(first_bad, last_bad)

    def row(s: Scope, outer: Index) -> None:
        if mask is None or form is not None:
            lim = row_limit(s, form, outer, n) if form is not None else s.const(n)
            bad = ends_bad(s, outer, lim)
        else:
            bad = _lanes_if(s, outer, ends_bad(s, outer, s.const(n)))
        s.b.store(s.b.or_(s.b.load(any_slot, typ=T.i1), bad), any_slot)

    def _lanes_if(s: Scope, outer: Index, row_bad: ir.Value) -> ir.Value:
        assert mask is not None
        fn = s.b.function
        pre = s.b.block
        slow, done = fn.append_basic_block("bounds.row"), fn.append_basic_block("bounds.row.end")
        s.b.cbranch(row_bad, slow, done)
        s.b.position_at_end(slow)
        found = lw.slot(T.i1)
        s.b.store(ir.Constant(T.i1, 0), found)
        with counted_loop(s.b, s.zero, s.const(n), "bounds.lane", unroll=False) as i:
            lane = Scope(s.b, parent=s)
            bad, _ = _bad_lane(s.b, lane.get(ptr, (*outer, i)), lane.get(mask, (*outer, i)), ext)
            s.b.store(s.b.or_(s.b.load(found, typ=T.i1), bad), found)
        result = s.b.load(found, typ=T.i1)
        slow_end = s.b.block
        s.b.branch(done)
        s.b.position_at_end(done)
        phi = s.b.phi(T.i1)
        phi.add_incoming(ir.Constant(T.i1, 0), pre)
        phi.add_incoming(result, slow_end)
        return phi

    each_index(b, ptr.shape[:-1], row)
    return True


def _all_true(shape: tuple[int, ...]) -> Tile:
    return ConstTile(shape, int1, ir.Constant(T.i1, 1), True)


def _record_if(lw: Lowering, op: O.BoundsCheckOp, bad: ir.Value, addr: ir.Value) -> None:
    b = lw.b
    fn = b.function
    fail, cont = fn.append_basic_block("bounds.fail"), fn.append_basic_block("bounds.ok")
    b.cbranch(bad, fail, cont)
    b.position_at_end(fail)
    _record(lw, op, addr)
    lw.ret()
    b.position_at_end(cont)


def _record(lw: Lowering, op: O.BoundsCheckOp, addr: ir.Value) -> None:
    """The first failure of the launch stores (code, linear program id, address)."""
    b = lw.b
    linear = lambda: linear_program_id(b, lw.pid, lw.grid)  # noqa: E731
    record_first(b, lw.scalar(op.record), op.code, "seq_cst", linear, addr)


RULES: dict[type, Callable[..., None]] = {
    O.PrintOp: _print,
    O.AssertOp: _assert,
    O.BoundsCheckOp: _bounds_check,
}
