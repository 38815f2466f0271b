"""``tl.constexpr``: the annotation that marks compile-time kernel parameters, and the wrapper
type of compile-time values inside kernels (``BLOCK: tl.constexpr``)."""

from __future__ import annotations

from typing import Any


class constexpr:
    """A value known at compile time. As an annotation, marks a parameter as compile-time."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value: Any = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr[{self.value!r}]"

    def __hash__(self) -> int:
        return hash(self.value)

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __int__(self) -> int:
        return int(self.value)

    def __float__(self) -> float:
        return float(self.value)


def is_constexpr_annotation(annotation: Any) -> bool:
    """True for ``tl.constexpr``, ``"tl.constexpr"`` / ``"constexpr"`` string annotations too."""
    if annotation is constexpr or isinstance(annotation, constexpr):
        return True
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == "constexpr"
    return False
