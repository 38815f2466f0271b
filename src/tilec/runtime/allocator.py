"""``tilec.set_allocator``: Triton's hook for the device scratch memory kernels may request.

Kernels that need global scratch (tensor-map descriptors built on the device, for one) ask
``allocate(size, alignment, stream)``; the allocator set here answers, as in Triton.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UsageError

Allocator = Callable[[int, int, Any], Any]
_allocator: Allocator | None = None


def set_allocator(allocator: Allocator | None) -> None:
    """Use ``allocator(size, alignment, stream)`` for scratch memory (None removes it)."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise UsageError("set_allocator expects a callable (size, alignment, stream) -> buffer")
    _allocator = allocator


def get_allocator() -> Allocator | None:
    return _allocator


def allocate(size: int, alignment: int, stream: Any) -> Any:
    """Scratch memory from the user's allocator; a clear error when none was set."""
    if _allocator is None:
        raise UsageError(
            "this kernel needs global scratch memory: call tilec.set_allocator(fn) first "
            "(fn(size, alignment, stream) returns a buffer, e.g. a torch uint8 tensor)"
        )
    return _allocator(size, alignment, stream)
