"""The import hook behind ``install_as_triton``: ``triton.X`` is ``tilec.compat.triton.X``
where Triton's layout needs an adapter, else tilec's module of the same path.

The module objects are shared, not copied (``sys.modules["triton.language"] is
tilec.language``), so identity and ``isinstance`` checks see one set of classes.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

# Triton module paths answered by an adapter under tilec.compat (a literal registry: no probing)
ADAPTERS: frozenset[str] = frozenset({
    "triton",
    "triton._filecheck",
    "triton.backends",
    "triton.backends.compiler",
    "triton.backends.driver",
    "triton.compiler",
    "triton.compiler.compiler",
    "triton.compiler.errors",
    "triton.knobs",
    "triton.runtime",
    "triton.runtime.autotuner",
    "triton.runtime.cache",
    "triton.runtime.driver",
    "triton.runtime.errors",
    "triton.runtime.jit",
})  # fmt: skip

# Triton module paths whose names live at another path in tilec
RENAMED: dict[str, str] = {
    "triton.runtime._allocation": "tilec.runtime.allocation",
}


def tilec_module_name(triton_name: str) -> str:
    """The tilec module that answers for the Triton module ``triton_name``."""
    if triton_name in ADAPTERS:
        return "tilec.compat." + triton_name
    for prefix, target in RENAMED.items():
        if triton_name == prefix or triton_name.startswith(prefix + "."):
            return target + triton_name[len(prefix) :]
    return "tilec" + triton_name[len("triton") :]


class _Existing(importlib.abc.Loader):
    """Hands the import system a module that is already loaded under its tilec name."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        """Already executed under its tilec name."""


class TilecAsTriton(importlib.abc.MetaPathFinder):
    """The finder ``install_as_triton`` puts first on ``sys.meta_path``."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        name = tilec_module_name(fullname)
        if fullname == "triton":  # the first use: Triton hosts pickle kernels from here on
            from . import pickling

            pickling.register()
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if name != missing and not name.startswith(missing + "."):
                raise  # an import inside an existing module failed: not ours to rename
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (tilec, installed as triton, has no {name})",
                name=fullname,
            ) from None
        spec = importlib.util.spec_from_loader(fullname, _Existing(module))
        if spec is not None and hasattr(module, "__path__"):
            spec.submodule_search_locations = list(module.__path__)
        return spec


def installed() -> bool:
    """Whether this process's ``sys.meta_path`` has the hook."""
    return any(isinstance(finder, TilecAsTriton) for finder in sys.meta_path)


def install_hook() -> None:
    """Put the hook first on ``sys.meta_path`` (once)."""
    if not installed():
        sys.meta_path.insert(0, TilecAsTriton())
