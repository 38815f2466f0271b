"""``tl.constexpr``: the annotation that marks compile-time kernel parameters, and the wrapper
type of compile-time values inside kernels (``BLOCK: tl.constexpr``); ``tl.constexpr_type``,
the type of such a value, which carries the value itself (as in Triton, two compile-time
values have the same type only when they are equal)."""

from __future__ import annotations

import operator
from collections.abc import Callable
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

    @property
    def type(self) -> constexpr_type:
        return constexpr_type(self.value)


class constexpr_type:
    """The type of a compile-time value: ``x.type`` of a ``tl.constexpr`` name or parameter."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value: Any = value.value if isinstance(value, constexpr) else value

    def __repr__(self) -> str:
        return f"constexpr_type[{self.value!r}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def mangle(self) -> str:
        return repr(self)


def _plain(x: Any) -> Any:
    return x.value if isinstance(x, constexpr) else x


def _binary(op: Callable[[Any, Any], Any], reflected: bool) -> Callable[[constexpr, Any], Any]:
    if reflected:
        return lambda self, other: constexpr(op(_plain(other), self.value))
    return lambda self, other: constexpr(op(self.value, _plain(other)))


# As in Triton, arithmetic on compile-time values (host code, constexpr functions, aggregate
# fields) gives a compile-time value: ``2 * BLOCK`` is ``constexpr[2 * BLOCK.value]``.
for _name, _op in {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lshift": operator.lshift, "rshift": operator.rshift,
}.items():  # fmt: skip
    setattr(constexpr, f"__{_name}__", _binary(_op, reflected=False))
    setattr(constexpr, f"__r{_name}__", _binary(_op, reflected=True))
for _name, _op in {
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}.items():  # fmt: skip
    setattr(constexpr, f"__{_name}__", _binary(_op, reflected=False))
for _name, _unary in {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert}.items():
    setattr(constexpr, f"__{_name}__", lambda self, _f=_unary: constexpr(_f(self.value)))


def is_constexpr_annotation(annotation: Any) -> bool:
    """True for ``tl.constexpr``, ``"tl.constexpr"`` / ``"constexpr"`` string annotations too."""
    if annotation is constexpr or isinstance(annotation, constexpr):
        return True
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == "constexpr"
    return False
