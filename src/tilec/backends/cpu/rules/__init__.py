"""Lowering rules of the CPU backend, one module per op family; ``RULES`` is their union."""

from __future__ import annotations

from ..lower import Rule
from . import control, debug, dot, elementwise, memory, reduce, shape

RULES: dict[type, Rule] = {
    **elementwise.RULES,
    **memory.RULES,
    **shape.RULES,
    **control.RULES,
    **reduce.RULES,
    **dot.RULES,
    **debug.RULES,
}
