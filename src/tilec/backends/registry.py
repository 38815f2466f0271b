"""The backends by name. Each is imported on first ``get`` (never at import time)."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

# name → (module, compiler class, driver class)
BACKENDS: dict[str, tuple[str, str, str]] = {
    "cpu": ("tilec.backends.cpu", "CpuCompiler", "CpuDriver"),
    "cuda": ("tilec.backends.cuda", "CudaCompiler", "CudaDriver"),
}


@dataclass(frozen=True)
class Backend:
    name: str
    compiler: Any
    driver: Any


@functools.cache
def get(kind: str) -> Backend:
    """The backend called ``kind`` ("cpu" or "cuda"), created once."""
    try:
        module_name, compiler_cls, driver_cls = BACKENDS[kind]
    except KeyError:
        raise UsageError(
            f"unknown backend {kind!r}; known: {', '.join(sorted(BACKENDS))}"
        ) from None
    module = importlib.import_module(module_name)
    return Backend(kind, getattr(module, compiler_cls)(), getattr(module, driver_cls)())


def names() -> tuple[str, ...]:
    return tuple(BACKENDS)
