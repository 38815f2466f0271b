"""Parameter annotations that fix a run-time scalar's type (Triton's ``annotation_type``).

``def k(out, v: tl.float16)`` makes ``v`` a float16 parameter whatever Python number is passed:
the launch converts the number to that type (the launcher rounds to nearest even) and the
kernel sees a value of that dtype. The spellings are Triton's: a tl dtype, its name as a string
(``"tl.float16"``, ``"fp16"``, ``"uint8_t"``) or a Python type (``int`` is i32, ``float`` fp32,
``bool`` i1). As in Triton, annotated floats and booleans are never specialized on their value;
an annotated integer keeps the divisible-by-16 fact but is not folded when it equals 1 (that
would give it i32's type). Pointer annotations (``"*fp16"``) are not read here.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

from ..errors import IntegerOverflowError, UnsupportedFeature, UsageError
from ..ir import types as ir
from .reinterpret import type_canonicalisation_dict

Describer = Callable[[Any], tuple[Any, Any]]

_BY_SHORT: dict[str, ir.ScalarType] = {
    **{t.short: t for t in (*ir.SCALAR_TYPES, *ir.UNSUPPORTED_TYPES)},
    "u1": ir.int1,
}


def annotated_scalar(annotation: Any) -> ir.ScalarType | None:
    """The scalar type an annotation fixes, or None (no annotation, a pointer, ``tl.constexpr``,
    ``torch.Tensor`` and every other annotation Triton does not read as a dtype)."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, ir.ScalarType):
        name = annotation.short
    elif isinstance(annotation, str):
        name = annotation.strip()
        if name.startswith(("*", "const ")) or name.endswith("*"):
            return None
        name = name.removeprefix("tl.")
    elif isinstance(annotation, type):
        name = annotation.__name__
    else:
        return None
    short = type_canonicalisation_dict.get(name.replace("_t", ""))
    return _BY_SHORT.get(short) if short is not None else None


class AnnotatedKey:
    """The key part of an annotated scalar: its type and, for integers, divisibility by 16
    (interned per pair and compared by identity, as PointerKey)."""

    __slots__ = ("divisible_by_16", "type")

    def __init__(self, t: ir.ScalarType, divisible_by_16: bool) -> None:
        self.type = t
        self.divisible_by_16 = divisible_by_16

    def __repr__(self) -> str:
        return f"AnnotatedKey({self.type}{':16' if self.divisible_by_16 else ''})"


_KEYS: dict[ir.ScalarType, tuple[AnnotatedKey, AnnotatedKey]] = {}


def annotated_keys(t: ir.ScalarType) -> tuple[AnnotatedKey, AnnotatedKey]:
    """The interned (plain, divisible-by-16) key pair of type ``t``."""
    pair = _KEYS.get(t)
    if pair is None:
        pair = _KEYS[t] = (AnnotatedKey(t, False), AnnotatedKey(t, True))
    return pair


def _number(value: Any) -> bool:
    """A Python or numpy number (bool included); not a string, an array or None."""
    if isinstance(value, (str, bytes)) or hasattr(value, "__len__"):
        return False
    return hasattr(value, "__index__") or hasattr(value, "__float__")


def _int_range(t: ir.ScalarType) -> tuple[int, int]:
    if t.is_int_unsigned():
        return 0, 2**t.bits - 1
    return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1


def annotated_describer(name: str, t: ir.ScalarType, specialize: bool = True) -> Describer:
    """The describer of parameter ``name`` annotated with ``t``: ``(key part, launch value)``,
    the value already of ``t``'s Python kind (float, 0/1, or an int in ``t``'s range)."""
    what = f"argument {name!r} is annotated {t!r}"
    plain, divisible = annotated_keys(t)

    def refuse(value: Any) -> UsageError:
        return UsageError(f"{what} and takes a number, got {type(value).__name__} {value!r}")

    if t in ir.UNSUPPORTED_TYPES:

        def describe(value: Any) -> tuple[Any, Any]:
            raise UnsupportedFeature(f"{what}: fp8 scalar parameters are not supported")

    elif t.is_floating():

        def describe(value: Any) -> tuple[Any, Any]:
            if not _number(value):
                raise refuse(value)
            try:
                return plain, float(value)
            except OverflowError:  # an int beyond double's range
                return plain, math.copysign(math.inf, value)

    elif t.is_bool():

        def describe(value: Any) -> tuple[Any, Any]:
            if not _number(value):
                raise refuse(value)
            return plain, int(bool(value))

    else:
        lo, hi = _int_range(t)

        def describe(value: Any) -> tuple[Any, Any]:
            if not hasattr(value, "__index__") or isinstance(value, (str, bytes)):
                raise UsageError(f"{what} and takes an integer, got {type(value).__name__}")
            v = int(value.__index__())
            if not lo <= v <= hi:
                raise IntegerOverflowError(f"{what}: {v} is outside its range [{lo}, {hi}]")
            return (divisible if specialize and v % 16 == 0 else plain), v

    return describe
