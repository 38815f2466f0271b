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


class _LazyCompiler:
    """A backend's compiler, imported and created on first use: loading a kernel from the
    disk cache needs only the driver, and the compiler's modules take ~40 ms to import."""

    def __init__(self, module_name: str, class_name: str) -> None:
        self._where = (module_name, class_name)
        self._compiler: Any = None

    def __getattr__(self, name: str) -> Any:  # stages, compile, assembly ...
        if self._compiler is None:
            module_name, class_name = self._where
            self._compiler = getattr(importlib.import_module(module_name), class_name)()
        return getattr(self._compiler, name)

    def __repr__(self) -> str:
        return f"<lazy {'.'.join(self._where)}>" if self._compiler is None else repr(self._compiler)


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
    return Backend(kind, _LazyCompiler(module_name, compiler_cls), getattr(module, driver_cls)())


def names() -> tuple[str, ...]:
    return tuple(BACKENDS)
