"""Verifier: every op's own rules, plus SSA scoping (a value is used only where it is visible)."""

from __future__ import annotations

from .core import Block, Op, Value
from .ops._check import VerificationError


def _verify_block(block: Block, visible: set[Value]) -> None:
    scope = set(visible) | set(block.args)
    for op in block.ops:
        for v in op.operands:
            if v not in scope:
                raise VerificationError(
                    f"{op.name}: operand {v!r} is used outside its scope", op.loc
                )
        op.verify()
        for region in op.regions:
            for inner in region.blocks:
                _verify_block(inner, scope)
        scope.update(op.results)
        if op.is_terminator and op is not block.ops[-1]:
            raise VerificationError(f"{op.name} must end its block", op.loc)


def verify(root: Op) -> None:
    """Raise VerificationError (a LoweringError) at the first broken rule under ``root``."""
    root.verify()
    for region in root.regions:
        for block in region.blocks:
            _verify_block(block, set())


__all__ = ["VerificationError", "verify"]
