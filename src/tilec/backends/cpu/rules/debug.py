"""Rules for device_print (printf from native code) and device_assert (the status block).

Print lines follow Triton: ``pid (x, y, z) idx (i, j)<prefix><value>``, one line per element,
flushed after each print op so output interleaves sensibly with Python's. ``printf`` and
``fflush`` are resolved from the C library when the object is loaded.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ....ir import ops as O
from ....ir.types import Element, Kind, PointerType, ScalarType, element_of, shape_of
from ...artifacts import AssertInfo
from ...llvm import types as T
from ...llvm.intrinsics import declare
from ..lower import Lowering
from ..nest import emit_nest
from ..scalar import to_compute
from ..tiles import Index, Scope, Tile


def _c_string(lw: Lowering, text: str) -> ir.Value:
    data = bytearray(text.encode("utf-8")) + b"\0"
    module = lw.b.module
    name = f".str.{len(module.globals)}"
    g = ir.GlobalVariable(module, ir.ArrayType(T.i8, len(data)), name)
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ir.ArrayType(T.i8, len(data)), data)
    return g


def _spec(elem: Element, hex_: bool) -> str:
    if isinstance(elem, PointerType):
        return "%p"
    assert isinstance(elem, ScalarType)
    if hex_:
        return f"0x%0{max(elem.bits // 4, 1)}" + ("llx" if elem.bits > 32 else "x")
    if elem.is_floating():
        return "%f"
    signed = elem.kind is Kind.SINT
    if elem.bits == 64:
        return "%lli" if signed else "%llu"
    return "%i" if signed else "%u"


def _vararg(b: ir.IRBuilder, x: ir.Value, elem: Element, hex_: bool) -> ir.Value:
    """C default argument promotion: small ints to int, floats to double."""
    if isinstance(elem, PointerType):
        return x
    assert isinstance(elem, ScalarType)
    if elem.is_floating():
        if hex_:
            return (
                b.zext(b.bitcast(x, ir.IntType(elem.bits)), T.i32)
                if elem.bits < 32
                else b.bitcast(x, ir.IntType(elem.bits))
            )
        c = to_compute(b, x, elem)
        return b.fpext(c, T.f64) if c.type != T.f64 else c
    if elem.bits < 32:
        return b.sext(x, T.i32) if elem.kind is Kind.SINT else b.zext(x, T.i32)
    return x


def _printf(lw: Lowering, b: ir.IRBuilder, fmt: ir.Value, args: list[ir.Value]) -> None:
    printf = declare(b.module, "printf", T.i32, [T.ptr], var_arg=True)
    b.call(printf, [fmt, *args])


def _print(lw: Lowering, op: O.PrintOp) -> None:
    b = lw.b
    pids = list(lw.pid)
    head = "pid (%u, %u, %u)"
    if not op.operands:
        _printf(lw, b, _c_string(lw, head + op.prefix + "\n"), pids)
    for k, v in enumerate(op.operands):
        elem = element_of(v.type)
        shape = shape_of(v.type)
        widths = [math.ceil(math.log10(d)) if d > 0 else 0 for d in shape]
        idx_fmt = ", ".join(f"%{w}u" if w else "%u" for w in widths)
        operand = f"(operand {k}) " if len(op.operands) > 1 else ""
        fmt = _c_string(lw, f"{head} idx ({idx_fmt}){op.prefix}{operand}{_spec(elem, op.hex)}\n")
        x = lw.get(v)
        if not isinstance(x, Tile):
            _printf(lw, b, fmt, [*pids, _vararg(b, x, elem, op.hex)])
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
    px, py, pz = (b.zext(p, T.i64) for p in lw.pid)
    gx, gy = (b.zext(g, T.i64) for g in lw.grid[:2])
    linear = b.add(px, b.mul(gx, b.add(py, b.mul(gy, pz))))
    b.store(linear, b.gep(lw.status, [ir.Constant(T.i64, 1)], source_etype=T.i64))
    b.branch(leave)
    b.position_at_end(leave)
    lw.ret()
    b.position_at_end(cont)


RULES: dict[type, Callable[..., None]] = {
    O.PrintOp: _print,
    O.AssertOp: _assert,
}
