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
    """The names of one function body annotated ``tl.constexpr``, and those that decayed."""

    annotated: set[str] = field(default_factory=set)
    decayed: set[str] = field(default_factory=set)

    @classmethod
    def of_function(cls, fn: Any) -> NameKinds:
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            return cls()
        return cls({p.name for p in params if is_constexpr_annotation(p.annotation)})

    def annotate(self, name: str) -> None:
        self.annotated.add(name)
        self.decayed.discard(name)

    def assigned(self, name: str, value: Any) -> None:
        """Record a plain assignment: a number given to an unannotated name decays."""
        if name not in self.annotated and is_number(unwrap(value)):
            self.decayed.add(name)
        else:
            self.decayed.discard(name)

    def type_of(self, node: ast.expr, value: Any) -> constexpr_type | None:
        """``node.type`` when it is a compile-time value's type; None to ask the value."""
        value = unwrap(value)
        name = node.id if isinstance(node, ast.Name) else None
        if name in self.annotated and not is_runtime(value):
            return constexpr_type(value)
        if name in self.decayed or not is_number(value):
            return None
        return constexpr_type(value)
