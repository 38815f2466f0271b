"""tilec: a Triton-compatible tile language and compiler for NVIDIA GPUs and any CPU.

``import tilec as triton`` and ``import tilec.language as tl`` run existing Triton kernels.
Importing tilec does no work: every public name below is loaded on first use (PEP 562), and
backends, llvmlite and the CUDA driver load only when a kernel is compiled or launched.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import (
    CompileError,
    LaunchError,
    PlatformError,
    TilecError,
)

if TYPE_CHECKING:
    from . import errors, knobs, language, runtime, testing, tools
    from .compat.install import install_as_triton
    from .errors import CompilationError, InterpreterError, TritonError
    from .runtime.allocator import set_allocator
    from .runtime.autotune import Config, KernelInterface, heuristics
    from .runtime.autotuner import Autotuner, autotune
    from .runtime.compile_api import compile
    from .runtime.constexpr_function import constexpr_function
    from .runtime.intmath import cdiv, next_power_of_2
    from .runtime.jit import JITFunction, jit
    from .runtime.reinterpret import TensorWrapper, reinterpret

# public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "jit": (".runtime.jit", "jit"),
    "JITFunction": (".runtime.jit", "JITFunction"),
    "autotune": (".runtime.autotuner", "autotune"),
    "heuristics": (".runtime.autotune", "heuristics"),
    "Config": (".runtime.autotune", "Config"),
    "Autotuner": (".runtime.autotuner", "Autotuner"),
    "compile": (".runtime.compile_api", "compile"),
    "cdiv": (".runtime.intmath", "cdiv"),
    "next_power_of_2": (".runtime.intmath", "next_power_of_2"),
    "set_allocator": (".runtime.allocator", "set_allocator"),
    "reinterpret": (".runtime.reinterpret", "reinterpret"),
    "TensorWrapper": (".runtime.reinterpret", "TensorWrapper"),
    "constexpr_function": (".runtime.constexpr_function", "constexpr_function"),
    "KernelInterface": (".runtime.autotune", "KernelInterface"),
    "knobs": (".knobs", None),
    "install_as_triton": (".compat.install", "install_as_triton"),
    # Triton's spellings of tilec's error classes
    "TritonError": (".errors", "TritonError"),
    "CompilationError": (".errors", "CompilationError"),
    "InterpreterError": (".errors", "InterpreterError"),
    "testing": (".testing", None),
    "runtime": (".runtime", None),
    "language": (".language", None),
    "errors": (".errors", None),
    "tools": (".tools", None),
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'tilec' has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "Autotuner",
    "CompilationError",
    "CompileError",
    "Config",
    "InterpreterError",
    "JITFunction",
    "KernelInterface",
    "LaunchError",
    "PlatformError",
    "TensorWrapper",
    "TilecError",
    "TritonError",
    "__version__",
    "autotune",
    "cdiv",
    "compile",
    "constexpr_function",
    "errors",
    "heuristics",
    "install_as_triton",
    "jit",
    "knobs",
    "language",
    "next_power_of_2",
    "reinterpret",
    "runtime",
    "set_allocator",
    "testing",
    "tools",
]
