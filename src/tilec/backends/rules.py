"""How every backend lowers one op: its rule, under one error policy.

Each backend keeps a table from op class to rule (``rules[type(op)](lowering, op)``). Whatever
goes wrong in a rule reaches the user located at the kernel source line of the op it was
lowering (``file:line:col`` with a caret), on every backend: an op without a rule is an
UnsupportedFeature naming it; a tilec error raised without a location gets the op's; any other
exception in a rule is a tilec bug, reported as a LoweringError (never a bare ``KeyError``).
Nested ops (a loop's body) are lowered through the same function, so the innermost op with a
location names the place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import CompileError, LoweringError, TilecError, UnsupportedFeature
from ..ir.core import Op

Rule = Callable[[Any, Op], None]

# what a rule's own bug raises: reported as a LoweringError at the op
_BUGS = (ValueError, TypeError, AttributeError, AssertionError, KeyError, IndexError)


def apply_rule(lowering: Any, rule: Rule | None, op: Op, backend: str) -> None:
    """Run ``rule`` (the backend's rule for ``op``, None where it has none) on ``op``."""
    if rule is None:
        raise UnsupportedFeature(
            f"the {backend} backend cannot lower '{op.name}' ({type(op).__name__})", op.loc
        )
    try:
        rule(lowering, op)
    except TilecError as exc:
        _locate(exc, op)
        raise
    except _BUGS as exc:
        raise LoweringError(
            f"lowering '{op.name}' failed: {type(exc).__name__}: {exc}", op.loc
        ) from exc


def _locate(exc: TilecError, op: Op) -> None:
    """Give a compile or lowering error raised without a location the op's (in place: its
    class, cause and traceback stay)."""
    if op.loc is None or not isinstance(exc, (CompileError, LoweringError)) or exc.loc is not None:
        return
    exc.loc = op.loc
    exc.args = (op.loc.render(exc.message),)
