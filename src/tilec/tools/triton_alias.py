"""``import triton`` answered by tilec, plus Triton's own test helpers read from a checkout.

Running Triton's test files unchanged needs two things: every ``triton.X`` resolved to tilec
(the import hook of ``tilec.install_as_triton``, compat/alias.py, whose modules ARE tilec's, so
identity and ``isinstance`` checks hold) and the pure-Python helpers the tests import that are
Triton's own code (``triton._internal_testing``), which are loaded from the Triton checkout the
caller names and never copied into tilec. ``install`` changes only the calling process.
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

from ..compat import alias

# Triton's own pure-Python test helpers: read from the checkout at run time
FROM_CHECKOUT: tuple[str, ...] = ("triton._internal_testing", "triton.tools.mxfp")


class CheckoutHelpers(importlib.abc.MetaPathFinder):
    """Finds the modules in FROM_CHECKOUT in a Triton source tree (ahead of tilec's hook)."""

    def __init__(self, checkout: Path) -> None:
        self.checkout = checkout

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in FROM_CHECKOUT:
            return None
        file = self.checkout / "python" / (fullname.replace(".", "/") + ".py")
        if not file.is_file():
            raise ModuleNotFoundError(f"{fullname}: {file} does not exist", name=fullname)
        return importlib.util.spec_from_file_location(fullname, file)


def install(checkout: str | Path | None = None) -> ModuleType:
    """Make ``import triton`` (and every ``triton.X``) resolve to tilec in this process, and
    ``triton._internal_testing`` to the file in ``checkout`` (a Triton source tree). Returns
    the ``triton`` module (tilec's)."""
    alias.install_hook()
    if checkout is not None and not any(isinstance(f, CheckoutHelpers) for f in sys.meta_path):
        sys.meta_path.insert(0, CheckoutHelpers(Path(checkout).resolve()))
    # a generated ``triton`` package may be importing this: tilec's module takes its place
    module = importlib.import_module(alias.tilec_module_name("triton"))
    sys.modules["triton"] = module
    return module
