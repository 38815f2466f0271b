"""Triton's ``triton.runtime._allocation`` names: ``NullAllocator`` and ``set_allocator``.

``set_allocator(NullAllocator())`` is how Triton code removes a scratch allocator it set; the
null allocator refuses every request with the same error tilec gives when none was ever set.
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from .allocator import get_allocator, set_allocator

__all__ = ["NullAllocator", "get_allocator", "set_allocator"]


class NullAllocator:
    """An allocator that has no memory to give: any kernel asking for scratch fails clearly."""

    def __call__(self, size: int, alignment: int, stream: Any) -> Any:
        raise UsageError(
            f"this kernel needs {size} bytes of global scratch memory but the allocator is "
            "NullAllocator: call tilec.set_allocator(fn) with fn(size, alignment, stream) "
            "returning a buffer, e.g. a torch uint8 tensor"
        )
