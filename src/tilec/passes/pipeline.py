"""The optimization pipeline: a named list of passes run in order, verified in debug mode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..ir.ops import ModuleOp
from ..ir.verify import verify
from . import canonicalize, constant_fold, cse, dce

Pass = Callable[[ModuleOp], None]


@dataclass(frozen=True)
class Pipeline:
    name: str
    steps: tuple[tuple[str, Pass], ...]

    def run(self, module: ModuleOp, debug: bool = False) -> None:
        for step_name, step in self.steps:
            step(module)
            if debug:
                try:
                    verify(module)
                except Exception as exc:
                    exc.add_note(f"after pass {self.name}/{step_name}") if hasattr(
                        exc, "add_note"
                    ) else None
                    raise


def _steps(names: Sequence[str]) -> tuple[tuple[str, Pass], ...]:
    table: dict[str, Pass] = {
        "canonicalize": canonicalize.run,
        "constant_fold": constant_fold.run,
        "cse": cse.run,
        "dce": dce.run,
    }
    return tuple((n, table[n]) for n in names)


DEFAULT = Pipeline(
    "default",
    _steps(["canonicalize", "constant_fold", "canonicalize", "cse", "constant_fold", "dce"]),
)


def optimize(module: ModuleOp, debug: bool = False) -> None:
    """Run the default pipeline on ``module`` in place."""
    DEFAULT.run(module, debug)
