"""wgmma groups left in flight across a pipelined loop's back edge, and the waits that end them.

A wgmma dot commits its instructions as one group and, by default, waits for it at once. Two
loop forms let the group run on while the warps go ahead (``deferred``):

- a K loop's ``acc = tl.dot(a, b, acc)`` whose accumulator nothing else in the body reads: the
  next iteration's instructions accumulate into the same registers in order, and each
  iteration's ``wait_group 1`` lets only the previous group finish before its stage slot is
  refilled;
- a carried dot result that the body reads only after an earlier wgmma dot of the body
  (attention's ``acc = tl.dot(p, v, acc * alpha)`` after ``qk = tl.dot(q, k)``,
  ``held_across``): the next iteration's first dot commits its own group behind it, then
  ``drain`` waits for both, the carried registers passed through the wait so that no read of
  them can move above it, before the copies refill the slot it read and before any use.

The loop's exit waits for whatever is still in flight (Lowering.deferred_waits).
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Value
from . import intrinsics as intr
from .lowering import Lowering, Tile
from .mma import Engine
from .types import F32


def wait(b: ir.IRBuilder, regs: dict, keep: int = 0) -> dict:
    """``wgmma.wait_group keep`` with every register of ``regs`` passed through it."""
    keys = list(regs)
    count = len(keys)
    cons = ",".join(["=f"] * count + [str(i) for i in range(count)])
    ret = ir.LiteralStructType([F32] * count)
    text = f"wgmma.wait_group.sync.aligned {keep};"
    out = intr.asm(b, ret, text, cons, [regs[k] for k in keys])
    return {k: b.extract_value(out, i) for i, k in enumerate(keys)}


def drain(L: Lowering, regs: dict | None = None) -> dict:
    """``wait_group 0`` with ``regs`` (the group just committed, if any) and the registers of
    the carried values a previous iteration's group may still be writing (Lowering.in_flight)
    passed through; those values are rebound to the waited registers and ``regs``' waited
    registers returned. (``wait_group 1`` would let this iteration's group run on, but ptxas
    cannot tell across the back edge which group it retires and serializes every wgmma.)"""
    pending = list(L.in_flight)
    L.in_flight.clear()
    tiles = [L.tile(v) for v in pending]
    everything = {("own", k): r for k, r in (regs or {}).items()}
    everything.update({(i, k): r for i, t in enumerate(tiles) for k, r in t.regs.items()})
    out = wait(L.b, everything)
    for i, (v, t) in enumerate(zip(pending, tiles)):
        L.set(v, Tile(t.layout, t.shape, {k: out[i, k] for k in t.regs}))
    return {k: out["own", k] for k in regs or {}}


def _loop_of(op: O.DotOp) -> O.ForOp | None:
    loop = getattr(op.parent.parent, "parent", None) if op.parent is not None else None
    return loop if isinstance(loop, O.ForOp) and op.parent is loop.body else None


def _is_wgmma(L: Lowering, op: object) -> bool:
    if not isinstance(op, O.DotOp):
        return False
    plan = L.dot_plans(op)
    return plan is not None and plan.engine is Engine.WGMMA


def held_across(L: Lowering, loop: O.ForOp) -> set[int]:
    """The carried indices of ``loop`` whose group may stay in flight until the next
    iteration's first wgmma dot: a wgmma dot's result that only the yield reads, carried into
    a value the body reads only after that first dot (which is not itself carried)."""
    term = loop.body.terminator
    if not L.defer_wgmma or loop not in L.pipelines or term is None:
        return set()
    ops = loop.body.ops
    first = next((i for i, o in enumerate(ops) if _is_wgmma(L, o)), None)
    if first is None or ops[first].results[0] in term.operands:
        return set()
    reads: dict[Value, list[int]] = {}  # the top-level position of each read
    for i, top in enumerate(ops):
        for o in top.walk():
            for x in o.operands:
                reads.setdefault(x, []).append(i)
    held = set()
    for index, v in enumerate(term.operands):
        dot = v.defining_op
        if not _is_wgmma(L, dot) or dot.parent is not loop.body or ops.index(dot) <= first:
            continue
        carried = loop.body.args[1 + index]
        if len(reads.get(v, [])) == 1 and all(i > first for i in reads.get(carried, [])):
            held.add(index)
    return held


def deferred(L: Lowering, op: O.DotOp) -> bool:
    """Whether ``op``'s group may stay in flight past its own commit (see the module's two
    forms); the loop's exit then waits for it (Lowering.deferred_waits)."""
    loop = _loop_of(op)
    if not L.defer_wgmma or loop is None or loop not in L.pipelines:
        return False
    term, acc = loop.body.terminator, op.operands[2]
    if term is None:
        return False
    held = term.operands.index(op.result) if op.result in term.operands else -1
    if held in L.held.get(loop, ()):
        index = held
    else:  # the K loop form
        if acc.owner is not loop.body or acc.index < 1:
            return False
        index = acc.index - 1
        reads = [x for top in loop.body.ops for o in top.walk() for x in o.operands]
        if term.operands[index] is not op.result or reads.count(op.result) != 1:
            return False
        if reads.count(acc) != 1:
            return False
    L.deferred_waits.setdefault(loop, set()).add(index)
    L.wgmma_deferred = True
    return True
