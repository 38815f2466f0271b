"""``triton.runtime.jit``: tilec's JITFunction and ``jit`` with Triton's KernelInterface; every
other name is ``tilec.runtime.jit``'s."""

from __future__ import annotations

from typing import Any

from ....runtime import jit as _jit
from ....runtime.autotune import KernelInterface
from ....runtime.jit import JITFunction, jit

__all__ = ["JITFunction", "KernelInterface", "jit"]


def __getattr__(name: str) -> Any:
    return getattr(_jit, name)
