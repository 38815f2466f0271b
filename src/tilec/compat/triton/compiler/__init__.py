"""``triton.compiler``: ``compile``, ``ASTSource`` and ``CompiledKernel`` (compiler.py)."""

from __future__ import annotations

from typing import Any

_NAMES = ("ASTSource", "CompiledKernel", "compile", "make_backend", "triton_key", "LazyDict")


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        from . import compiler

        return getattr(compiler, name)
    if name == "CompilationError":
        from .errors import CompilationError

        return CompilationError
    raise AttributeError(f"module 'triton.compiler' (tilec) has no attribute {name!r}")
