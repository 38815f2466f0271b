"""``triton.runtime``: tilec's runtime under Triton's names; ``driver``, ``jit``, ``autotuner``,
``cache`` and ``errors`` are this package's adapters, everything else is ``tilec.runtime``'s."""

from __future__ import annotations

import importlib
from typing import Any

_ADAPTED = ("driver", "jit", "autotuner", "cache", "errors")


def __getattr__(name: str) -> Any:
    if name in _ADAPTED:
        return importlib.import_module(f"{__name__}.{name}")
    if name in ("OutOfResources", "InterpreterError"):
        return getattr(importlib.import_module(f"{__name__}.errors"), name)
    from .... import runtime

    try:
        return getattr(runtime, name)
    except AttributeError:
        raise AttributeError(f"module 'triton.runtime' (tilec) has no attribute {name!r}") from None
