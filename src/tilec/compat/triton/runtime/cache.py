"""``triton.runtime.cache``: Triton's ``triton_key`` and ``knobs`` beside tilec's kernel cache."""

from __future__ import annotations

from typing import Any

from ....runtime import cache as _cache
from .. import knobs
from ..compiler.compiler import triton_key

__all__ = ["knobs", "triton_key"]


def __getattr__(name: str) -> Any:
    return getattr(_cache, name)
