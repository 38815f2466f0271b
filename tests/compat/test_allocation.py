"""``triton.runtime._allocation``: NullAllocator answers every request with a clear error."""

from __future__ import annotations

import pytest

import tilec
from tilec.errors import UsageError
from tilec.runtime import allocation, allocator


def test_null_allocator_removes_a_user_allocator():
    tilec.set_allocator(lambda size, alignment, stream: bytearray(size))
    try:
        assert allocator.allocate(16, 16, None) == bytearray(16)
        tilec.set_allocator(allocation.NullAllocator())
        with pytest.raises(UsageError, match=r"needs 64 bytes .* NullAllocator"):
            allocator.allocate(64, 16, None)
    finally:
        tilec.set_allocator(None)


def test_triton_module_path_names():
    assert allocation.set_allocator is tilec.set_allocator
    assert callable(allocation.NullAllocator())
