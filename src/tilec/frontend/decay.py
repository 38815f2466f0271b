"""Which names hold compile-time values the way Triton sees them, for ``x.type``.

In Triton a number assigned to a name without a ``tl.constexpr`` annotation becomes a tensor
("decays"), while parameters and names annotated ``tl.constexpr`` keep a compile-time value,
whose type is ``tl.constexpr_type(value)``. tilec keeps every constant a constant (so it can
fold more), and this record lets ``.type`` answer as Triton would all the same.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field
from typing import Any

from ..constexpr import constexpr_type, is_constexpr_annotation
from .operators import is_runtime
from .semantics import is_number
from .values import unwrap


def is_constexpr_node(annotation: ast.expr) -> bool:
    """True for the annotations ``tl.constexpr``, ``constexpr`` and ``"tl.constexpr"``."""
    match annotation:
        case ast.Attribute(attr="constexpr") | ast.Name(id="constexpr"):
            return True
        case ast.Constant(value=str() as text):
            return is_constexpr_annotation(text)
    return False


@dataclass
class NameKinds:
    """The names of one function body annotated ``tl.constexpr``, its parameters still holding
    their arguments, and the names that decayed."""

    annotated: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)
    decayed: set[str] = field(default_factory=set)

    @classmethod
    def of_function(cls, fn: Any) -> NameKinds:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            return cls()
        annotated = {p.name for p in params if is_constexpr_annotation(p.annotation)}
        return cls(annotated, {p.name for p in params})

    def annotate(self, name: str) -> None:
        self.annotated.add(name)
        self.decayed.discard(name)

    def assigned(self, name: str, value: Any) -> None:
        """Record a plain assignment: a number given to an unannotated name decays."""
        self.params.discard(name)
        if name not in self.annotated and is_number(unwrap(value)):
            self.decayed.add(name)
        else:
            self.decayed.discard(name)

    def type_of(self, node: ast.expr, value: Any) -> constexpr_type | None:
        """``node.type`` when ``node`` is a compile-time value as Triton sees it: a name
        annotated ``tl.constexpr``, a parameter given a compile-time number (an integer equal
        to 1 is one), or an element of either; None to ask the value itself. Other
        expressions keep tilec's answer (a number becomes a tensor), since Triton computes
        them from values that may have decayed."""
        value = unwrap(value)
        while isinstance(node, ast.Subscript):
            node = node.value
        name = node.id if isinstance(node, ast.Name) else None
        if name is None or name in self.decayed or is_runtime(value):
            return None
        if name in self.annotated or (name in self.params and is_number(value)):
            return constexpr_type(value)
        return None
