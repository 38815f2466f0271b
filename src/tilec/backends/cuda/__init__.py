"""The CUDA backend: tile IR → distributed layouts → LLVM NVPTX → PTX → cubin, and a driver
that loads cubins through cuda-bindings. ``CudaCompiler`` and ``CudaDriver`` (what the registry
asks for) are imported on first attribute access, so importing this package loads neither
llvmlite nor CUDA.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CudaCompiler", "CudaDriver"]


def __getattr__(name: str) -> Any:
    if name == "CudaCompiler":
        from .compiler import CudaCompiler

        return CudaCompiler
    if name == "CudaDriver":
        from .driver import CudaDriver

        return CudaDriver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
