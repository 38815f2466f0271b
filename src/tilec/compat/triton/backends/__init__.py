"""``triton.backends``: ``backends`` maps Triton's backend names to a compiler class and a
driver class, as Triton's plug-in discovery does; tilec has two, ``cpu`` and ``nvidia``.

The table is built on first access (no discovery at import time).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Backend:
    """Triton's entry: the compiler class and the driver class of one backend."""

    compiler: type
    driver: type


def _table() -> dict[str, Backend]:
    from .compiler import CpuBackend, CudaBackend
    from .driver import CpuDriver, CudaDriver

    return {"cpu": Backend(CpuBackend, CpuDriver), "nvidia": Backend(CudaBackend, CudaDriver)}


def __getattr__(name: str) -> Any:
    if name == "backends":
        table = globals()["backends"] = _table()
        return table
    if name in ("BaseBackend", "GPUTarget"):
        from . import compiler

        return getattr(compiler, name)
    if name == "DriverBase":
        from . import driver

        return driver.DriverBase
    raise AttributeError(f"module 'triton.backends' (tilec) has no attribute {name!r}")
