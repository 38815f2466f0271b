"""``tilec.install_as_triton()``: the one opt-in that makes ``import triton`` resolve to tilec.

In this process it puts alias.py's hook first on ``sys.meta_path``; for child processes (the
compile workers of PyTorch's Inductor) it sets ``TILEC_AS_TRITON``, which startup.py honours at
interpreter start-up. An installed Triton is never shadowed silently: install_as_triton refuses
unless ``replace_installed=True``, and ``which_triton()`` (``tilec doctor``) says which package
``import triton`` gives this process.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from types import ModuleType

from .. import config
from ..errors import UsageError
from ..platform.system import System
from ..platform.triton_probe import Provider, TritonResolution, resolve, triton_facts
from . import alias

__all__ = ["Provider", "TritonResolution", "install_as_triton", "installed_triton", "which_triton"]

# The variable child processes inherit (read by config.py; the .pth start-up hook honours it)
ENV = "TILEC_AS_TRITON"
ENV_ON = "1"  # tilec answers `import triton` where no Triton is installed
ENV_REPLACE = "replace"  # ... and over an installed Triton, an explicit choice


def installed_triton() -> str | None:
    """Where ``import triton`` would find an installed Triton (tilec's hook not consulted)."""
    return System().find_package("triton") or None


def _is_tilec(module: ModuleType) -> bool:
    return getattr(module, "__tilec_as_triton__", False) is True


def which_triton() -> TritonResolution:
    """What ``import triton`` gives this process, without importing it (the doctor's
    ``tilec.triton`` finding reads the same facts for a new process)."""
    facts = dataclasses.replace(triton_facts(System()), as_triton=config.get().as_triton)
    loaded = sys.modules.get("triton")
    if loaded is not None and not _is_tilec(loaded):
        return TritonResolution(Provider.TRITON, facts)
    return resolve(facts, in_process=loaded is not None or alias.installed())


def _check_not_too_late() -> None:
    """Refuse when a Triton or Inductor's no-Triton stand-ins were imported already."""
    loaded = sys.modules.get("triton")
    if loaded is not None and not _is_tilec(loaded):
        raise UsageError(
            f"install_as_triton: triton is already imported from {loaded.__file__}; "
            "call tilec.install_as_triton() before anything imports triton"
        )
    compat = sys.modules.get("torch._inductor.runtime.triton_compat")
    if compat is not None and not getattr(compat, "HAS_TRITON", True):
        raise UsageError(
            "install_as_triton: torch._inductor was imported before and recorded that no "
            "Triton exists; call tilec.install_as_triton() before torch.compile runs"
        )


def install_as_triton(*, replace_installed: bool = False) -> ModuleType:
    """Make ``import triton`` resolve to tilec here and in child processes; returns the
    ``triton`` module. With a Triton installed, ``replace_installed=True`` must say so."""
    real = installed_triton()
    if real is not None and not replace_installed:
        raise UsageError(
            f"install_as_triton: a Triton is installed ({real}); tilec would shadow it. "
            "Pass replace_installed=True to choose tilec in this process and its children"
        )
    _check_not_too_late()
    alias.install_hook()
    # children inherit the choice; "replace" also tells them the shadowing was asked for
    choice = ENV_REPLACE if real is not None else ENV_ON
    os.environ[ENV] = choice
    config.update(as_triton=choice)
    return importlib.import_module("triton")
