"""The CPU backend: tile IR → fused, vectorized loop nests → LLVM → native code in-process.

``CpuCompiler``, ``CpuDriver`` and ``LoadedCpuKernel`` are imported on first attribute access,
so loading a cached kernel (the driver) never imports the compiler.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CpuCompiler", "CpuDriver", "LoadedCpuKernel"]


def __getattr__(name: str) -> Any:
    if name == "CpuCompiler":
        from .compiler import CpuCompiler

        return CpuCompiler
    if name in ("CpuDriver", "LoadedCpuKernel"):
        from . import driver

        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
