"""``triton.compiler.errors``: Triton's compile-error names for tilec's error classes."""

from ....errors import CompileError, CompileTimeAssertionFailure, TilecError, UnsupportedSyntax

CompilationError = CompileError
UnsupportedLanguageConstruct = UnsupportedSyntax
TritonError = TilecError

__all__ = [
    "CompilationError",
    "CompileTimeAssertionFailure",
    "TritonError",
    "UnsupportedLanguageConstruct",
]
