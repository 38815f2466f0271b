"""``import triton`` answered by tilec: every ``triton.X`` module IS ``tilec.X``.

Code written for Triton (a test suite, a tutorial) runs unchanged after ``install()``: a finder
at the front of ``sys.meta_path`` maps ``triton.X.Y`` to tilec's module of the same path (or to
the tilec module holding Triton's names where tilec's layout differs), so ``isinstance`` and
identity checks see one set of objects. Pure-Python test helpers that are Triton's own code
(``triton._internal_testing``) are loaded from a Triton checkout the caller names, never copied.
Nothing happens at import time; ``install`` changes ``sys.modules`` of the calling process only.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

# Triton module paths whose names live elsewhere in tilec
RENAMED: dict[str, str] = {
    "triton.runtime._allocation": "tilec.runtime.allocation",
    "triton.runtime.errors": "tilec.errors",
    "triton.compiler.errors": "tilec.errors",
    "triton.knobs": "tilec.knobs",
}

# Triton's own pure-Python test helpers: read from the checkout at run time
FROM_CHECKOUT: tuple[str, ...] = ("triton._internal_testing", "triton.tools.mxfp")


class _Existing(importlib.abc.Loader):
    """Hands the import system a module that is already loaded (tilec's)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        """Already executed under its tilec name."""


class TritonAlias(importlib.abc.MetaPathFinder):
    """The finder ``install`` puts first on ``sys.meta_path``."""

    def __init__(self, checkout: Path | None) -> None:
        self.checkout = checkout

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("triton."):
            return None
        if fullname in FROM_CHECKOUT:
            return self._checkout_spec(fullname)
        module = importlib.import_module(tilec_name(fullname))
        return importlib.util.spec_from_loader(fullname, _Existing(module))

    def _checkout_spec(self, fullname: str) -> importlib.machinery.ModuleSpec | None:
        if self.checkout is None:
            raise ModuleNotFoundError(
                f"{fullname} is Triton's own code: pass the Triton checkout to "
                "tilec.tools.triton_alias.install(checkout=...)",
                name=fullname,
            )
        file = self.checkout / "python" / (fullname.replace(".", "/") + ".py")
        if not file.is_file():
            raise ModuleNotFoundError(f"{fullname}: {file} does not exist", name=fullname)
        return importlib.util.spec_from_file_location(fullname, file)


def tilec_name(triton_name: str) -> str:
    """The tilec module that answers for ``triton_name``."""
    for prefix, target in RENAMED.items():
        if triton_name == prefix or triton_name.startswith(prefix + "."):
            return target + triton_name[len(prefix) :]
    return "tilec" + triton_name[len("triton") :]


def install(checkout: str | Path | None = None) -> ModuleType:
    """Make ``import triton`` (and every ``triton.X``) resolve to tilec in this process.

    ``checkout``: a Triton source tree whose ``python/triton/_internal_testing.py`` (and other
    helpers in ``FROM_CHECKOUT``) the alias loads when asked for. Returns ``tilec``."""
    import tilec

    root = Path(checkout).resolve() if checkout is not None else None
    if not any(isinstance(f, TritonAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, TritonAlias(root))
    sys.modules["triton"] = tilec
    return tilec
