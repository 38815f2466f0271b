"""ArgSpec: what the compiler may assume about one kernel argument.

The runtime derives an ArgSpec from each Python argument (Triton's specialization rules:
pointers aligned to 16 bytes, integers divisible by 16, integers equal to 1, i32 vs i64 by
value, constexprs by value); the tuple of ArgSpecs is part of the cache key and tells the
frontend the parameter types. Frozen and hashable, never a ``"*fp32"`` string. A tuple
argument is one spec holding its elements' specs (the frontend rebuilds the tuple); backends and
launchers see only its ``leaves``.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .types import PointerType, ScalarType, Type


class ArgKind(enum.Enum):
    POINTER = "pointer"  # a tensor/array: ``type`` is a PointerType
    SCALAR = "scalar"  # an int/float/bool passed at run time: ``type`` is a ScalarType
    CONSTEXPR = "constexpr"  # folded into the kernel: ``value`` holds it
    NONE = "none"  # ``None`` passed for an unused argument (folded like a constexpr)
    TUPLE = "tuple"  # a (named) tuple of arguments: ``value`` is (its Python type, element specs)
    # a host TensorDescriptor inside a tuple: ``value`` is (block shape, padding, element specs:
    # base pointer, shape, strides but the last, which is 1)
    DESCRIPTOR = "descriptor"


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
        if self.kind is ArgKind.TUPLE:
            return f"{self.name}=({', '.join(str(e) for e in self.value[1])})"
        if self.kind is ArgKind.DESCRIPTOR:
            block, padding, elements = self.value
            inner = ", ".join(str(e) for e in elements)
            return f"{self.name}=descriptor{list(block)}[{padding}]({inner})"
        facts = (":16" if self.divisible_by_16 else "") + ("=1" if self.equals_one else "")
        return f"{self.name}: {self.type}{facts}"


def pointer_arg(name: str, element: ScalarType, aligned: bool = True) -> ArgSpec:
    return ArgSpec(name, ArgKind.POINTER, PointerType(element), divisible_by_16=aligned)


def scalar_arg(name: str, t: ScalarType, divisible_by_16: bool = False) -> ArgSpec:
    return ArgSpec(name, ArgKind.SCALAR, t, divisible_by_16=divisible_by_16)


def constexpr_arg(name: str, value: Any) -> ArgSpec:
    return ArgSpec(name, ArgKind.CONSTEXPR, value=value)


def tuple_arg(name: str, python_type: type, elements: Sequence[ArgSpec]) -> ArgSpec:
    """A tuple argument (``python_type`` is ``tuple`` or a named tuple class); its elements
    are named ``name[0]``, ``name[1]`` ... by the caller."""
    return ArgSpec(name, ArgKind.TUPLE, value=(python_type, tuple(elements)))


def descriptor_arg(
    name: str, block_shape: tuple[int, ...], padding: str, elements: Sequence[ArgSpec]
) -> ArgSpec:
    """A TensorDescriptor inside a tuple argument, from its base, shape and outer strides."""
    return ArgSpec(name, ArgKind.DESCRIPTOR, value=(block_shape, padding, tuple(elements)))


def leaves(specs: Sequence[ArgSpec]) -> tuple[ArgSpec, ...]:
    """The specs with every tuple replaced by its elements, depth first: what backends and
    launchers see (one value per leaf at launch)."""
    out: list[ArgSpec] = []
    for s in specs:
        if s.kind in (ArgKind.TUPLE, ArgKind.DESCRIPTOR):
            out += leaves(s.value[-1])
        else:
            out.append(s)
    return tuple(out)
