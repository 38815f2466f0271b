"""Lowering rules of the CUDA backend, one module per op family; ``RULES`` is their union."""

from __future__ import annotations

from ..lowering import Rule
from . import atomic, control, debug, dot, elementwise, memory, reduce, shape

RULES: dict[type, Rule] = {
    **elementwise.RULES,
    **memory.RULES,
    **reduce.RULES,
    **control.RULES,
    **shape.RULES,
    **dot.RULES,
    **atomic.RULES,
    **debug.RULES,
}
