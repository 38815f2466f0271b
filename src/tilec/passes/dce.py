"""Dead code elimination: drop pure ops whose results nobody uses.

An op with regions (if, for, while, reduce) is pure when nothing inside it has side effects, so a
loop whose results are unused and whose body only computes disappears too.
"""

from __future__ import annotations

from ..ir.core import Block, Op, Value, uses
from ..ir.ops import FuncOp, ModuleOp


def _is_pure(op: Op) -> bool:
    # a volatile load is observable: a loop spinning on one waits for another program
    return not any(
        inner.has_side_effects or getattr(inner, "volatile", False) for inner in op.walk()
    )


def _sweep(block: Block, used: dict[Value, list[Op]]) -> bool:
    changed = False
    for op in reversed(list(block.ops)):
        for region in op.regions:
            for inner in region.blocks:
                changed |= _sweep(inner, used)
        keep = op.is_terminator or isinstance(op, FuncOp)  # an empty kernel is still a kernel
        if keep or any(r in used for r in op.results) or not _is_pure(op):
            continue
        op.erase()
        changed = True
    return changed


def run(module: ModuleOp) -> None:
    """Remove dead ops until nothing changes."""
    while _sweep(module.body, uses(module)):
        pass
