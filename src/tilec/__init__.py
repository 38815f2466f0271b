"""tilec: a Triton-compatible tile language and compiler for NVIDIA GPUs and any CPU.

``import tilec as triton`` and ``import tilec.language as tl`` run existing Triton kernels.
Importing tilec does no work: backends, llvmlite and the CUDA driver load on first use.
"""

from ._version import __version__
from .errors import (
    CompileError,
    LaunchError,
    PlatformError,
    TilecError,
)

__all__ = [
    "CompileError",
    "LaunchError",
    "PlatformError",
    "TilecError",
    "__version__",
]
