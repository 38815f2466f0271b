"""The runtime: ``@jit`` kernels, specialization, the kernel cache, autotuning and launching.

Submodules are imported on use; importing this package does no work. Triton's names under
``triton.runtime`` (``driver``, ``JITFunction``, ``Autotuner``, ``Config``...) resolve lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> (submodule, attribute or None for the submodule itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "driver": (".driver", None),
    "JITFunction": (".jit", "JITFunction"),
    "jit": (".jit", None),
    "KernelInterface": (".autotune", "KernelInterface"),
    "Heuristics": (".autotune", "Heuristics"),
    "Config": (".autotune", "Config"),
    "Autotuner": (".autotuner", "Autotuner"),
    "autotuner": (".autotuner", None),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    return module if attr is None else getattr(module, attr)
