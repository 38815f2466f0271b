"""ArgSpec: what the compiler may assume about one kernel argument.

The runtime derives an ArgSpec from each Python argument (Triton's specialization rules:
pointers aligned to 16 bytes, integers divisible by 16, integers equal to 1, i32 vs i64 by
value, constexprs by value); the tuple of ArgSpecs is part of the cache key and tells the
frontend the parameter types. Frozen and hashable, never a ``"*fp32"`` string.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from .types import PointerType, ScalarType, Type


class ArgKind(enum.Enum):
    POINTER = "pointer"  # a tensor/array: ``type`` is a PointerType
    SCALAR = "scalar"  # an int/float/bool passed at run time: ``type`` is a ScalarType
    CONSTEXPR = "constexpr"  # folded into the kernel: ``value`` holds it
    NONE = "none"  # ``None`` passed for an unused argument (folded like a constexpr)


@dataclass(frozen=True)
class ArgSpec:
    name: str
    kind: ArgKind
    type: Type | None = None
    divisible_by_16: bool = False  # int divisible by 16, or pointer aligned to 16 bytes
    equals_one: bool = False  # int == 1 (folded to the constant 1)
    value: Any = None  # the constexpr value (hashable)

    @property
    def is_runtime(self) -> bool:
        """True for parameters the compiled kernel takes at launch."""
        return self.kind in (ArgKind.POINTER, ArgKind.SCALAR) and not self.equals_one

    def __str__(self) -> str:
        if self.kind is ArgKind.CONSTEXPR:
            return f"{self.name}={self.value!r}"
        if self.kind is ArgKind.NONE:
            return f"{self.name}=None"
        facts = (":16" if self.divisible_by_16 else "") + ("=1" if self.equals_one else "")
        return f"{self.name}: {self.type}{facts}"


def pointer_arg(name: str, element: ScalarType, aligned: bool = True) -> ArgSpec:
    return ArgSpec(name, ArgKind.POINTER, PointerType(element), divisible_by_16=aligned)


def scalar_arg(name: str, t: ScalarType, divisible_by_16: bool = False) -> ArgSpec:
    return ArgSpec(name, ArgKind.SCALAR, t, divisible_by_16=divisible_by_16)


def constexpr_arg(name: str, value: Any) -> ArgSpec:
    return ArgSpec(name, ArgKind.CONSTEXPR, value=value)
