"""Instructions whose results nothing uses, dropped from an llvmlite function before printing;
and a printed module taken apart, so that reference counting frees it.

Lowering computes every register of a tile, and consumers often take a few: a 16-byte vector
store reads the pointer of its first element only, a pipelined copy the pointers of its
chunks. LLVM removes the rest in its first passes, but the text is printed by llvmlite in
Python and parsed again by LLVM first (a quarter of the tutorial matmul's IR was dead).
A value is live when an instruction with an effect (a call, a store, a terminator, ...) uses
it, directly or through other live values; phis and loop back edges included.
"""

from __future__ import annotations

from llvmlite import ir

_PURE_CLASSES = (
    ir.GEPInstr, ir.CastInstr, ir.CompareInstr, ir.SelectInstr, ir.PhiInstr, ir.LoadInstr,
    ir.ExtractValue, ir.InsertValue, ir.ExtractElement, ir.InsertElement, ir.ShuffleVector,
)  # fmt: skip
_PURE_OPS = frozenset(
    [
        "add",
        "sub",
        "mul",
        "shl",
        "lshr",
        "ashr",
        "and",
        "or",
        "xor",
        "udiv",
        "sdiv",
        "urem",
        "srem",
        "fadd",
        "fsub",
        "fmul",
        "fdiv",
        "frem",
        "fneg",
    ]
)


def _pure(inst: ir.Instruction) -> bool:
    """No effect but its result (plain loads included: tilec's volatile ones are inline asm)."""
    if type(inst) is ir.Instruction:
        return inst.opname in _PURE_OPS
    return isinstance(inst, _PURE_CLASSES)


def _operands(inst: ir.Instruction) -> list[object]:
    if isinstance(inst, ir.PhiInstr):
        return [value for value, _ in inst.incomings]
    return list(inst.operands)


def prune(fn: ir.Function) -> int:
    """Drop the dead pure instructions of ``fn``; returns how many."""
    live: set[int] = set()
    work = [i for block in fn.blocks for i in block.instructions if not _pure(i)]
    while work:
        inst = work.pop()
        if id(inst) in live:
            continue
        live.add(id(inst))
        work.extend(
            op for op in _operands(inst) if isinstance(op, ir.Instruction) and id(op) not in live
        )
    dropped = 0
    for block in fn.blocks:
        kept = [i for i in block.instructions if id(i) in live]
        dropped += len(block.instructions) - len(kept)
        block.instructions = kept
    return dropped


def dismantle(module: ir.Module) -> None:
    """Break the reference cycles of a printed module (instructions and their blocks, phis and
    the values of a loop) so that reference counting frees it at once: left to the cyclic
    collector, the tens of thousands of objects of a big kernel cost a full collection later."""
    for fn in module.functions:
        for block in fn.blocks:
            for inst in block.instructions:
                if isinstance(inst, ir.PhiInstr):
                    inst.incomings.clear()
            block.instructions.clear()
            block.terminator = None
        fn.blocks.clear()
    module.globals.clear()
