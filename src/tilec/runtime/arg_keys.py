"""The key parts of argument specialization: small hashable values, one per launch argument.

A key part carries everything the compiler may assume of an argument (Triton's rules): a scalar's
type code (plus a bit when an integer is divisible by 16, or ONE for the value 1), an array's
device, element type and 16-byte alignment (PointerKey), a descriptor's base and block
(DescriptorKey), a tuple's type and elements' parts (TupleKey), a constexpr's value
(ConstexprKey). describers.py computes them per launch; specialize.py turns them into ArgSpecs.
"""

from __future__ import annotations

from typing import Any

from ..ir import types as ir

# Scalar key parts: a type code (even) plus 1 when an integer is divisible by 16; ONE folds the
# value. Dropping the divisibility bit (do_not_specialize) must leave every code's type alone.
ONE, I32, I64, U64, BOOL, FP32 = 1, 2, 4, 6, 8, 10


class PointerKey:
    """The key part of an array argument: device kind, element type, 16-byte alignment.

    Instances are interned by ``pointer_keys`` and compared by identity, so hashing a key is
    a C-level operation (a frozen dataclass would hash through Python on every launch).
    """

    __slots__ = ("aligned", "device", "element")

    def __init__(self, device: str, element: ir.ScalarType, aligned: bool) -> None:
        self.device = device
        self.element = element
        self.aligned = aligned

    def __repr__(self) -> str:
        return f"PointerKey({self.device}, {self.element}, aligned={self.aligned})"


_POINTER_KEYS: dict[tuple[str, ir.ScalarType], tuple[PointerKey, PointerKey]] = {}


def pointer_keys(device: str, element: ir.ScalarType) -> tuple[PointerKey, PointerKey]:
    """The interned (unaligned, aligned) key pair, so warm launches allocate nothing."""
    pair = _POINTER_KEYS.get((device, element))
    if pair is None:
        pair = (PointerKey(device, element, False), PointerKey(device, element, True))
        _POINTER_KEYS[(device, element)] = pair
    return pair


class DescriptorKey:
    """The key part of a descriptor argument (interned, compared by identity)."""

    __slots__ = ("base", "block_shape", "padding")

    def __init__(self, base: PointerKey, block_shape: tuple[int, ...], padding: str) -> None:
        self.base = base
        self.block_shape = block_shape
        self.padding = padding

    @property
    def rank(self) -> int:
        return len(self.block_shape)


# (base key, block shape, padding) -> the interned key (describers.describe_descriptor)
DESCRIPTOR_KEYS: dict[tuple[PointerKey, tuple[int, ...], str], DescriptorKey] = {}


class TupleKey(tuple):  # type: ignore[type-arg]
    """The key part of a (named) tuple argument: its Python type, then each element's key part
    (Triton specializes every element as it would a whole argument)."""

    __slots__ = ()


class ConstexprKey(tuple):  # type: ignore[type-arg]
    """The key part of a value compile-time by its type wherever it is passed (``tl.constexpr``,
    a @jit function): ``(constexpr_key(value),)``."""

    __slots__ = ()


def leaf_keys(name: str, key: Any) -> list[tuple[str, Any]]:
    """``(name, key)`` of each leaf of an argument: ``x[0]``, ``x[1][0]`` ... for tuples."""
    if type(key) is DescriptorKey:
        return [(f"{name}.base", key.base)]
    if type(key) is not TupleKey:
        return [(name, key)]
    return [leaf for i, k in enumerate(key[1:]) for leaf in leaf_keys(f"{name}[{i}]", k)]
