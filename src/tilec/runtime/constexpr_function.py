"""``@triton.constexpr_function``: a Python helper that kernels call with compile-time values.

tilec already runs any plain Python function called from a kernel at compile time when every
argument is a compile-time value (and refuses run-time tensors with an error naming the call),
which is what Triton's decorator asks for; the decorator marks the function and returns it, so
host code calls it as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])


def constexpr_function(fn: F) -> F:
    """Mark ``fn`` as callable from kernels at compile time; returns ``fn`` itself."""
    if not callable(fn):
        raise UsageError(f"constexpr_function expects a function, got {type(fn).__name__}")
    fn.__tilec_constexpr_function__ = True  # type: ignore[attr-defined]
    return fn
