"""Triton's ``repr`` hook: the name of each compiled specialization of a kernel.

``@jit(repr=fn)`` calls ``fn(specialization)`` with Triton's view of the specialization (its
``signature``, parameter name to type string such as ``"i32"`` or ``"*fp32"``, and its
``constants``, parameter name to compile-time value, integers equal to 1 included), and the
compiled kernel takes the name it returns. Without a hook the name is the function's own. Hosts
call ``kernel.repr(...)`` too and may replace it (Inductor pins a constant name before pickling).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..ir.argspec import ArgKind, ArgSpec


class SpecializationProxy(NamedTuple):
    """What a ``repr`` hook receives, with Triton's field names."""

    constants: dict[str, Any]
    signature: dict[str, str]


class KernelRepr:
    """``kernel.repr``: the user's hook, or the function's name."""

    def __init__(self, name: str, hook: Callable[[Any], str] | None = None) -> None:
        self.name = name
        self.hook = hook

    def __call__(self, specialization: Any) -> str:
        return self.name if self.hook is None else str(self.hook(specialization))


def _signature(spec: ArgSpec) -> str:
    if spec.kind in (ArgKind.CONSTEXPR, ArgKind.NONE) or spec.equals_one:
        return "constexpr"
    if spec.kind is ArgKind.TUPLE:
        return "(" + ",".join(_signature(e) for e in spec.value[1]) + ")"
    if spec.kind is ArgKind.DESCRIPTOR:
        return "tensordesc"
    return str(spec.type)


def specialization_proxy(specs: Sequence[ArgSpec]) -> SpecializationProxy:
    constants: dict[str, Any] = {}
    for s in specs:
        if s.kind in (ArgKind.CONSTEXPR, ArgKind.NONE):
            constants[s.name] = s.value
        elif s.equals_one:
            constants[s.name] = 1
    return SpecializationProxy(constants, {s.name: _signature(s) for s in specs})


def symbol_name(name: str) -> str | None:
    """``name`` made a valid symbol (other characters become ``_``); None when empty."""
    cleaned = re.sub(r"\W", "_", name, flags=re.ASCII)
    if not cleaned:
        return None
    return "_" + cleaned if cleaned[0].isdigit() else cleaned
