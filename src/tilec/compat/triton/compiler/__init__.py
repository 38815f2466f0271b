"""``triton.compiler``: ``compile``, ``ASTSource`` and ``CompiledKernel`` (compiler.py)."""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = ("ASTSource", "CompiledKernel", "compile", "make_backend", "triton_key", "LazyDict")
# submodules, reachable as attributes as in Triton (``triton.compiler.errors.CompilationError``)
_SUBMODULES = ("compiler", "errors", "launcher")


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        from . import compiler

        return getattr(compiler, name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "CompilationError":
        from .errors import CompilationError

        return CompilationError
    raise AttributeError(f"module 'triton.compiler' (tilec) has no attribute {name!r}")
