"""The CPU backend: tile IR → fused, vectorized loop nests → LLVM → native code in-process."""

from .compiler import CpuCompiler
from .driver import CpuDriver, LoadedCpuKernel

__all__ = ["CpuCompiler", "CpuDriver", "LoadedCpuKernel"]
