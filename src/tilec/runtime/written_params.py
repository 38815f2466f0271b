"""Which pointer parameters a kernel may write through (stores and atomics), from its tile IR.

A read-only array (a read-only memory map, ``np.frombuffer`` of bytes) passed to such a
parameter would crash the process or corrupt an immutable object, so the launch refuses it.
The analysis follows pointer-typed values back from each store's and atomic's address through
the ops that compute them (regions included); a pointer loaded from memory names no parameter.
"""

from __future__ import annotations

from ..ir.core import Block, Op, Value
from ..ir.ops import FuncOp, ModuleOp
from ..ir.ops.memory import AtomicCASOp, AtomicRMWOp, LoadOp, StoreOp
from ..ir.types import PointerType, TileType

_WRITERS = (StoreOp, AtomicRMWOp, AtomicCASOp)  # operand 0 is the address written


def _holds_pointer(value: Value) -> bool:
    t = value.type
    return isinstance(t, PointerType) or (
        isinstance(t, TileType) and isinstance(t.element, PointerType)
    )


def _sources(op: Op) -> list[Value]:
    """The pointer values ``op``'s pointer results may come from: its pointer operands and,
    for control flow, the pointers its regions yield."""
    found = [v for v in op.operands if _holds_pointer(v)]
    for region in op.regions:
        for block in region.blocks:
            if block.ops and block.ops[-1].is_terminator:
                found += [v for v in block.ops[-1].operands if _holds_pointer(v)]
    return found


def written_params(func: FuncOp) -> tuple[str, ...]:
    """Names of ``func``'s runtime parameters that a store or an atomic may write through."""
    params = {id(arg): spec.name for arg, spec in zip(func.args, func.specs)}
    pending = [op.operands[0] for op in func.walk() if isinstance(op, _WRITERS)]
    seen: set[int] = set()
    written: set[str] = set()
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if id(value) in params:
            written.add(params[id(value)])
        elif isinstance(value.owner, Op):
            if not isinstance(value.owner, LoadOp):
                pending += _sources(value.owner)
        elif isinstance(value.owner, Block):  # a loop-carried or branch argument
            region = value.owner.parent
            parent = region.parent if region is not None else None
            if parent is not None and parent is not func:
                pending += _sources(parent)
    return tuple(spec.name for spec in func.specs if spec.name in written)


def module_written_params(module: ModuleOp) -> tuple[str, ...]:
    """``written_params`` of the module's kernel."""
    return tuple(n for f in module.functions for n in written_params(f))
