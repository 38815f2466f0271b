"""Triton's host-side integer helpers: ``cdiv`` and ``next_power_of_2``."""

from __future__ import annotations

from typing import Any


def cdiv(x: Any, y: Any) -> Any:
    """Ceiling division, ``(x + y - 1) // y`` (works on ints and on anything with ``//``)."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= ``n`` (1 for ``n <= 1``)."""
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()
