"""Structured control flow (for, if, while) as LLVM basic blocks with phis per register.

Loop-carried tiles keep the layout planned for the loop's results; values yielded in another
layout are converted before the back edge. Scalar conditions are uniform across the block, so
barriers inside branches are safe. A ``for`` loop that pipeline.py chose to pipeline also gets
its cp.async prologue, a stage-slot counter, the next iteration's copies at the top of its body
and a drain at its exit; its pipelined loads read the stage buffers.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ....errors import LoweringError
from ....ir import ops as O
from ....ir.core import Op, Value
from ....ir.types import Kind, ScalarType, TileType
from .. import cp_async, pipeline_lowering, wgmma_groups
from ..lowering import Lowered, Lowering, Rule, Tile
from ..pipeline import LoopPipeline
from ..types import I32


def _flatten(x: Lowered) -> list[ir.Value]:
    if isinstance(x, Tile):
        return [x.regs[k] for k in sorted(x.regs)]
    return [x]


def _phis(L: Lowering, like: Sequence[Lowered]) -> tuple[list[Lowered], list[ir.PhiInstr]]:
    """New phis shaped like ``like`` (tiles keep their layout and keys)."""
    made: list[Lowered] = []
    phis: list[ir.PhiInstr] = []
    for x in like:
        if isinstance(x, Tile):
            regs = {}
            for k in sorted(x.regs):
                p = L.b.phi(x.regs[k].type)
                regs[k] = p
                phis.append(p)
            made.append(Tile(x.layout, x.shape, regs))
        else:
            p = L.b.phi(x.type)
            phis.append(p)
            made.append(p)
    return made, phis


def _incoming(phis: list[ir.PhiInstr], values: Sequence[Lowered], block: ir.Block) -> None:
    flat = [v for x in values for v in _flatten(x)]
    for p, v in zip(phis, flat):
        p.add_incoming(v, block)


def _as(L: Lowering, values: Sequence[Value], like: Sequence[Lowered]) -> list[Lowered]:
    """The lowered ``values``, tiles converted to the layouts of ``like``."""
    out: list[Lowered] = []
    for v, ref in zip(values, like):
        out.append(L.value(v, ref.layout if isinstance(ref, Tile) else None))
    return out


def _initial(L: Lowering, op: Op, inits: Sequence[Value]) -> list[Lowered]:
    return [
        L.value(v, L.want(r) if isinstance(r.type, TileType) else None)
        for v, r in zip(inits, op.results)
    ]


def _for(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ForOp)
    lb, ub, step = (L.scalar(v) for v in op.operands[:3])
    inits = _initial(L, op, op.init_args)
    elem = op.operands[0].type
    signed = isinstance(elem, ScalarType) and elem.kind is not Kind.UINT
    pipe = L.pipelines.get(op)
    if pipe is not None:
        L.pipelined_depth += 1  # scratch from here to the exit stays clear of the stage slots
        pipeline_lowering.prologue(L, pipe, lb, ub, step, inits, signed)
    b = L.b
    header = b.append_basic_block("for.header")
    body = b.append_basic_block("for.body")
    exit_ = b.append_basic_block("for.exit")
    entry = b.block
    b.branch(header)
    b.position_at_end(header)
    iv = b.phi(lb.type)
    iv.add_incoming(lb, entry)
    carried, phis = _phis(L, inits)
    _incoming(phis, inits, entry)
    slot = None
    if pipe is not None:  # the stage buffer of this iteration
        slot = b.phi(I32)
        slot.add_incoming(ir.Constant(I32, 0), entry)
    cond = b.icmp_signed("<", iv, ub) if signed else b.icmp_unsigned("<", iv, ub)
    b.cbranch(cond, body, exit_)
    b.position_at_end(body)
    L.set(op.induction_var, iv)
    for arg, x in zip(op.body.args[1:], carried):
        L.set(arg, x)
    # carried dot results whose wgmma group the previous iteration left in flight
    L.held[op] = wgmma_groups.held_across(L, op)
    L.in_flight.update(dict.fromkeys(op.body.args[1 + i] for i in sorted(L.held[op])))
    if pipe is None:
        L.block(op.body)
    else:
        assert slot is not None
        pipeline_lowering.top_of_body(L, pipe, iv, ub, step, signed, carried, slot)
        _staged_body(L, op, pipe, slot)
        L.release_copies(op.body)  # still held when no dot directly in the body took them
    if L.in_flight:  # held_across guarantees a wgmma dot before any read drained them
        raise LoweringError("a wgmma group held across the loop's back edge was never waited for")
    term = op.body.terminator
    nexts = _as(L, term.operands if term is not None else [], carried)
    latch = b.block
    iv.add_incoming(b.add(iv, step), latch)
    _incoming(phis, nexts, latch)
    if pipe is not None:
        assert slot is not None
        slot.add_incoming(pipeline_lowering.next_slot(b, pipe, slot), latch)
    b.branch(header)
    b.position_at_end(exit_)
    if pipe is not None:
        cp_async.wait_all(b)  # drain the copies issued for iterations past the end
        L.pipelined_depth -= 1
    for i in sorted(L.deferred_waits.pop(op, ())):  # the last wgmma groups still in flight
        x = carried[i]
        assert isinstance(x, Tile)
        carried[i] = Tile(x.layout, x.shape, wgmma_groups.wait(b, x.regs))
    for r, x in zip(op.results, carried):
        L.set(r, x)


def _staged_body(L: Lowering, op: O.ForOp, pipe: LoopPipeline, slot: ir.Value) -> None:
    """Lower the body with its pipelined loads reading this iteration's stage buffer."""
    staged = {s.op: s for s in pipe.loads}
    outer = L.rules
    plain = outer[O.LoadOp]

    def load(L: Lowering, o: Op) -> None:
        s = staged.get(o)  # type: ignore[call-overload]
        if s is None:
            plain(L, o)
        else:
            pipeline_lowering.read(L, s, slot)

    L.rules = {**outer, O.LoadOp: load}
    try:
        L.block(op.body)
    finally:
        L.rules = outer


def _if(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.IfOp)
    b = L.b
    cond = L.scalar(op.operands[0])
    then_bb = b.append_basic_block("if.then")
    else_bb = b.append_basic_block("if.else")
    merge = b.append_basic_block("if.end")
    b.cbranch(cond, then_bb, else_bb)
    arms = []
    for bb, block in ((then_bb, op.then_block), (else_bb, op.else_block)):
        b.position_at_end(bb)
        L.block(block)
        term = block.terminator
        values = term.operands if term is not None else []
        lowered = [
            L.value(v, L.want(r) if isinstance(r.type, TileType) else None)
            for v, r in zip(values, op.results)
        ]
        arms.append((lowered, b.block))
        b.branch(merge)
    b.position_at_end(merge)
    if op.results:
        made, phis = _phis(L, arms[0][0])
        for lowered, block in arms:
            _incoming(phis, lowered, block)
        for r, x in zip(op.results, made):
            L.set(r, x)


def _while(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.WhileOp)
    b = L.b
    inits = _initial(L, op, op.operands)
    header = b.append_basic_block("while.before")
    after = b.append_basic_block("while.after")
    exit_ = b.append_basic_block("while.exit")
    entry = b.block
    b.branch(header)
    b.position_at_end(header)
    carried, phis = _phis(L, inits)
    _incoming(phis, inits, entry)
    for arg, x in zip(op.before.args, carried):
        L.set(arg, x)
    L.block(op.before)
    cond_op = op.before.terminator
    assert isinstance(cond_op, O.ConditionOp)
    forwarded = _as(L, cond_op.operands[1:], carried)
    cond = L.scalar(cond_op.operands[0])
    b.cbranch(cond, after, exit_)
    b.position_at_end(after)
    for arg, x in zip(op.after.args, forwarded):
        L.set(arg, x)
    L.block(op.after)
    term = op.after.terminator
    nexts = _as(L, term.operands if term is not None else [], carried)
    _incoming(phis, nexts, b.block)
    b.branch(header)
    b.position_at_end(exit_)
    for r, x in zip(op.results, forwarded):
        L.set(r, x)


RULES: dict[type, Rule] = {O.ForOp: _for, O.IfOp: _if, O.WhileOp: _while}
