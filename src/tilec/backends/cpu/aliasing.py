"""Tell LLVM that a program's tile buffers never alias the memory its pointers reach.

Tile buffers (stack allocas and the program's heap block) are private: no kernel pointer can
point into them. LLVM cannot always see that (once a buffer's address is compared or turned into
an integer it counts as escaped), and then keeps loads and stores in order, e.g. it cannot turn
a fully unrolled copy from a buffer to the output into vector moves. Every access whose address
comes from a buffer gets ``!alias.scope`` of one scope, every other access ``!noalias`` of it.
"""

from __future__ import annotations

from enum import Enum

from llvmlite import ir


class Origin(Enum):
    BUFFER = "buffer"  # a tile buffer or scalar slot of this program
    MEMORY = "memory"  # anything a kernel pointer may reach
    MIXED = "mixed"  # either, depending on a run-time choice


def annotate(fn: ir.Function) -> None:
    """Attach the buffer / memory scopes to every load and store in ``fn``."""
    module = fn.module
    domain = module.add_metadata([ir.MetaDataString(module, "tilec.program")])
    scope = module.add_metadata([ir.MetaDataString(module, "tilec.buffers"), domain])
    scopes = module.add_metadata([scope])
    seen: dict[int, Origin] = {}
    for block in fn.blocks:
        for instr in block.instructions:
            if isinstance(instr, ir.LoadInstr):
                ptr = instr.operands[0]
            elif isinstance(instr, ir.StoreInstr):
                ptr = instr.operands[1]
            else:
                continue
            origin = _origin(ptr, seen)
            if origin is Origin.BUFFER:
                instr.set_metadata("alias.scope", scopes)
            elif origin is Origin.MEMORY:
                instr.set_metadata("noalias", scopes)


def _origin(ptr: ir.Value, seen: dict[int, Origin]) -> Origin:
    """Where ``ptr`` points, following address arithmetic back to its base."""
    known = seen.get(id(ptr))
    if known is not None:
        return known
    seen[id(ptr)] = Origin.MIXED  # a cycle through phis settles on "unknown"
    result = _classify(ptr, seen)
    seen[id(ptr)] = result
    return result


def _classify(ptr: ir.Value, seen: dict[int, Origin]) -> Origin:
    if isinstance(ptr, ir.AllocaInstr):
        return Origin.BUFFER
    if isinstance(ptr, ir.CallInstr):
        callee = getattr(ptr.callee, "name", "")
        return Origin.BUFFER if callee == "malloc" else Origin.MEMORY
    if isinstance(ptr, ir.GEPInstr):
        return _origin(ptr.pointer, seen)
    if isinstance(ptr, ir.SelectInstr):
        return _join([_origin(ptr.lhs, seen), _origin(ptr.rhs, seen)])
    if isinstance(ptr, ir.PhiInstr):
        return _join([_origin(v, seen) for v, _ in ptr.incomings])
    if isinstance(ptr, ir.CastInstr):
        return _origin(ptr.operands[0], seen) if ptr.opname == "bitcast" else Origin.MIXED
    # loaded from memory, a function argument, a constant: never a tile buffer's address
    return Origin.MEMORY


def _join(origins: list[Origin]) -> Origin:
    first = origins[0]
    return first if all(o is first for o in origins) else Origin.MIXED
