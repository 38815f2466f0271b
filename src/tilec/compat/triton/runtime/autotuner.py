"""``triton.runtime.autotuner``: tilec's Autotuner, Heuristics and Config with Triton's error
names; every other name is ``tilec.runtime.autotuner``'s."""

from __future__ import annotations

from typing import Any

from ....runtime import autotuner as _autotuner
from ....runtime.autotune import Config, Heuristics, KernelInterface, heuristics
from ....runtime.autotuner import Autotuner, autotune
from .errors import OutOfResources, PTXASError

__all__ = ["Autotuner", "Config", "Heuristics", "KernelInterface", "OutOfResources",
           "PTXASError", "autotune", "heuristics"]  # fmt: skip


def __getattr__(name: str) -> Any:
    return getattr(_autotuner, name)
