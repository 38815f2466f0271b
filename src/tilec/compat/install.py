"""``tilec.install_as_triton()``: the one opt-in that makes ``import triton`` resolve to tilec.

In this process it puts alias.py's hook first on ``sys.meta_path``; for child processes (the
compile workers of PyTorch's Inductor) it sets ``TILEC_AS_TRITON``, which startup.py honours at
interpreter start-up. An installed Triton is never shadowed silently: install_as_triton refuses
unless ``replace_installed=True``, and ``which_triton()`` (``tilec doctor``) says which package
``import triton`` gives this process.
"""

from __future__ import annotations

import enum
import importlib
import importlib.machinery
import os
import sys
from dataclasses import dataclass
from types import ModuleType

from ..errors import UsageError
from . import alias

# The variable child processes read at start-up (startup.py; see there why not config.py)
ENV = "TILEC_AS_TRITON"
ENV_ON = "1"  # tilec answers `import triton` where no Triton is installed
ENV_REPLACE = "replace"  # ... and over an installed Triton, an explicit choice


class Provider(enum.Enum):
    TILEC = "tilec"  # the hook is installed: `import triton` is tilec
    TRITON = "triton"  # an installed Triton package
    NONE = "none"  # `import triton` fails


@dataclass(frozen=True)
class TritonResolution:
    """Which package ``import triton`` gives this process, and the Triton it would shadow."""

    provider: Provider
    installed_triton: str | None  # where an installed Triton lives (None: none installed)
    env: str | None  # TILEC_AS_TRITON as this process inherited it

    def summary(self) -> str:
        where = f" (installed Triton at {self.installed_triton})" if self.installed_triton else ""
        if self.provider is Provider.TILEC:
            shadow = ", shadowing the installed Triton" if self.installed_triton else ""
            return f"import triton gives tilec{shadow}{'' if shadow else where}"
        if self.provider is Provider.TRITON:
            return f"import triton gives the installed Triton{where}"
        return "import triton fails: no Triton is installed (tilec.install_as_triton() opts in)"


def installed_triton() -> str | None:
    """The directory of a Triton found on ``sys.path`` (tilec's hook not consulted)."""
    spec = importlib.machinery.PathFinder.find_spec("triton")
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or ())
    return locations[0] if locations else spec.origin


def _is_tilec(module: ModuleType) -> bool:
    return getattr(module, "__tilec_as_triton__", False) is True


def which_triton() -> TritonResolution:
    """What ``import triton`` gives this process, without importing it."""
    real = installed_triton()
    loaded = sys.modules.get("triton")
    if (loaded is not None and _is_tilec(loaded)) or (loaded is None and alias.installed()):
        provider = Provider.TILEC
    elif loaded is not None or real is not None:
        provider = Provider.TRITON
    else:
        provider = Provider.NONE
    return TritonResolution(provider, real, os.environ.get(ENV))


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
    os.environ[ENV] = ENV_REPLACE if real is not None else ENV_ON
    return importlib.import_module("triton")
