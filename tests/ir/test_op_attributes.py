"""Every field an op sets in its constructor is one of its attributes (or restates which
operands it has): CSE merges two ops with the same class, attributes, operands and result
types, so a field left out of ``attributes()`` would let it merge ops that compute different
things, and the printed tile IR would not show it. Read statically from the ops' modules."""

from __future__ import annotations

import ast
import inspect
import sys

import pytest

from tilec.ir import ops as O
from tilec.ir.core import Op

# fields that restate the operands (which optional operands are present, how many) or the
# function's signature (its arguments, printed as such)
_STRUCTURE = {"has_mask", "has_other", "n_extents", "specs"}


def _op_classes() -> list[type[Op]]:
    found = {cls for cls in vars(O).values() if isinstance(cls, type) and issubclass(cls, Op)}
    return sorted((c for c in found if c is not Op), key=lambda c: c.__name__)


def _class_node(cls: type) -> ast.ClassDef:
    tree = ast.parse(inspect.getsource(sys.modules[cls.__module__]))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__)


def _method(cls: type, name: str) -> ast.FunctionDef | None:
    body = _class_node(cls).body
    return next((n for n in body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _self_attributes(node: ast.AST, stored: bool) -> set[str]:
    """``self.x`` stored (``stored``) or read; read ones include ``getattr(self, "x")`` by a
    name listed in the method."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            if not stored or isinstance(n.ctx, ast.Store):
                found.add(n.attr)
        elif not stored and isinstance(n, ast.Constant) and isinstance(n.value, str):
            found.add(n.value)
    return found


def _fields(cls: type[Op]) -> set[str]:
    init = _method(cls, "__init__")
    return _self_attributes(init, stored=True) if init is not None else set()


def _read_by_attributes(cls: type[Op]) -> set[str]:
    """The fields ``attributes()`` reads, with the helpers it calls on ``self``."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if not (isinstance(klass, type) and issubclass(klass, Op)) or klass is Op:
            continue
        for method in ("attributes", "_hint_attrs"):
            node = _method(klass, method)
            if node is not None:
                names |= _self_attributes(node, stored=False)
    return names


@pytest.mark.parametrize("cls", _op_classes(), ids=lambda c: c.__name__)
def test_every_field_is_an_attribute(cls: type[Op]) -> None:
    missing = _fields(cls) - _STRUCTURE - _read_by_attributes(cls)
    assert not missing, f"{cls.__name__} sets {sorted(missing)} but attributes() omits them"
