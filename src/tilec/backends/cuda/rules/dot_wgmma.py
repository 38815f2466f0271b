"""``tl.dot`` on sm_90a's warpgroup tensor cores: wgmma.mma_async from shared memory.

Both operands are in shared memory in wgmma's swizzled layout (mma.staging, wgmma.py): a
pipelined loop copied them there, or rules.dot_mma staged them. Each warpgroup issues one
m64nNk16 per (64-row slab, k16 step) into the accumulator registers, which keep mma.sync's
layout, commits the group, lets the loop start its next copies, and waits for the group before
anything reads the accumulator or the stage slot is refilled. The wait names every accumulator
register as an operand, so no use of a result can be scheduled above it.
"""

from __future__ import annotations

import math

from llvmlite import ir

from ....ir.core import Block
from .. import intrinsics as intr
from .. import wgmma, wgmma_groups
from ..lowering import Lowering
from ..mma import MmaPlan, Staged
from ..mma_fragments import RegisterFragments
from ..types import F32, I32, I64

_FENCE = "llvm.nvvm.wgmma.fence.sync.aligned"
_COMMIT = "llvm.nvvm.wgmma.commit_group.sync.aligned"


def accumulate(
    L: Lowering,
    block: Block | None,
    plan: MmaPlan,
    a: tuple[Staged, ir.Value] | RegisterFragments,
    b: tuple[Staged, ir.Value],
    regs: dict,
    deferred: bool = False,
) -> dict:
    """The accumulator registers after ``acc += A @ B`` (``regs``: before). A is in shared
    memory, or a Tile in the accumulator's layout: its registers are then wgmma's A fragments
    as they are (rows 16*w4 + g + 8*h of each slab, K columns 2*t.. of each k8 half).

    ``deferred``: the results only feed the next iteration's dot into the same registers (a K
    loop's ``acc = tl.dot(a, b, acc)``): this group may stay in flight while the loop goes on,
    the wait lets only the previous iteration's group finish (its stage slot is refilled next:
    a warpgroup's group is one operation, done for all its warps at once; with two warpgroups
    a barrier follows) and the loop's exit waits for the rest (wgmma_groups.py)."""
    bld = L.b
    regs = dict(regs)
    sb, base_b = b
    groups = plan.wm // 4
    registers_a = isinstance(a, RegisterFragments)
    a_operand = a if registers_a else _SharedA(L, plan, *a)
    desc_b = _descriptor(bld, sb, base_b)
    count = plan.n // 2
    text = wgmma.instruction(plan, sb.kmajor, registers_a=registers_a)
    # an accumulator of zeros (a dot without one): the first k step writes D = A @ B and its
    # registers go in undefined, so no zero is copied into each of them first
    zeros = all(_is_zero(v) for v in regs.values())
    first = wgmma.instruction(plan, sb.kmajor, registers_a, accumulate=False) if zeros else text
    a_cons = ["r"] * 4 if registers_a else ["l"]
    cons = ",".join(["=f"] * count + a_cons + ["l"] + [str(i) for i in range(count)])
    ret = ir.LiteralStructType([F32] * count)
    undefined = ir.Constant(F32, ir.Undefined)
    slabs, steps = range(plan.m // (64 * groups)), range(plan.k // 16)
    # every operand word and address before the fence: a register A packed between the
    # instructions would make ptxas insert a warpgroup.arrive before each one (C7519)
    a_ops = {(mi, ks): a_operand.a(mi, ks, 0) for ks in steps for mi in slabs}
    b_descs = [_at(bld, desc_b, wgmma.b_offset(sb, ks)) for ks in steps]
    _call(bld, _FENCE)
    for ks in steps:
        db = b_descs[ks]
        for mi in slabs:
            ops = a_ops[mi, ks]
            keys = wgmma.acc_keys(plan, mi)
            acc = [undefined] * len(keys) if zeros and ks == 0 else [regs[k] for k in keys]
            op_text = first if ks == 0 else text
            out = intr.asm(bld, ret, op_text, cons, [*ops, db, *acc])
            for i, k in enumerate(keys):
                regs[k] = bld.extract_value(out, i)
    _call(bld, _COMMIT)
    if deferred:
        if block in L.held_copies:  # a K loop: the copies refill the previous group's slot
            intr.asm(bld, ir.VoidType(), "wgmma.wait_group.sync.aligned 1;", "", [])
            if groups > 1:  # another warpgroup may still read the slot the copies refill
                L.barrier()
            L.release_copies(block)
        return regs
    if L.in_flight:  # a previous iteration's group (attention's p @ v) ends with this one
        regs = wgmma_groups.drain(L, regs)
        if groups > 1:  # another warpgroup may still read the slot the copies refill
            L.barrier()
        L.release_copies(block)
        return regs
    L.release_copies(block)  # the next stage's copies overlap the tensor cores' work
    return wgmma_groups.wait(bld, regs)


class _SharedA:
    """A in shared memory: one descriptor per (slab, k step)."""

    def __init__(self, L: Lowering, plan: MmaPlan, s: Staged, base: ir.Value) -> None:
        b = self.b = L.b
        self.plan, self.s = plan, s
        self.groups = plan.wm // 4
        self.desc = _descriptor(b, s, base)
        if self.groups > 1:  # warpgroup wg's slabs follow those of the warpgroups before it
            wg = b.zext(b.lshr(L.warp, ir.Constant(I32, 2)), I64)
            self.desc = b.add(self.desc, b.mul(wg, ir.Constant(I64, 64 * s.width >> 4)))

    def a(self, mi: int, ks: int, batch: int) -> list[ir.Value]:
        offset = wgmma.a_offset(self.s, mi * self.groups, ks)
        return [_at(self.b, self.desc, offset)]


def _is_zero(v: ir.Value) -> bool:
    """Whether ``v`` is the constant +0.0 (tl.zeros' registers, or a dot without accumulator)."""
    return (
        isinstance(v, ir.Constant)
        and isinstance(v.constant, float)
        and v.constant == 0.0
        and math.copysign(1.0, v.constant) > 0
    )


def _descriptor(b: ir.IRBuilder, s: Staged, base: ir.Value) -> ir.Value:
    """The descriptor of ``s`` (at ``s.offset`` from ``base``): the 16-byte units of its shared
    address (below 256 KiB: 14 bits, so offsets add without carrying into LBO) and the fixed
    fields."""
    addr = b.add(b.ptrtoint(base, I32), ir.Constant(I32, s.offset))
    addr = b.lshr(addr, ir.Constant(I32, 4))
    return b.or_(b.zext(addr, I64), ir.Constant(I64, wgmma.descriptor_high(s)))


def _at(b: ir.IRBuilder, desc: ir.Value, offset: int) -> ir.Value:
    return b.add(desc, ir.Constant(I64, offset >> 4)) if offset else desc


def _call(b: ir.IRBuilder, name: str) -> None:
    b.call(intr.declare(b, name, ir.VoidType(), []), [])
