"""The CUDA backend: tile IR → distributed layouts → LLVM NVPTX → PTX → cubin, and a driver
that loads cubins through cuda-bindings. ``compiler()`` and ``driver()`` build its two halves
(the registry calls them lazily; importing this package loads neither llvmlite nor CUDA).
"""

from __future__ import annotations

from typing import Any


def compiler() -> Any:
    from .compiler import CudaCompiler

    return CudaCompiler()


def driver() -> Any:
    from .driver import CudaDriver

    return CudaDriver()
