"""FunctionCodegen's expressions: one ``expr_<Node>`` method per supported Python expression.

An expression whose operands are all compile-time values is evaluated in Python (constexpr
folding: ``BLOCK * 2``, ``x.shape == [16]``, f-strings); one with a run-time Tensor emits IR
through arith.py. Lists and tuples are one kind of value, as Triton's ``tl.tuple``.
"""

from __future__ import annotations

import ast
import operator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ..errors import ConstexprError, UnsupportedSyntax
from ..ir.builder import Builder
from . import arith, control_flow
from .builtins_shape import subscript
from .decay import NameKinds
from .operators import CMP_NAMES, PY_BINOPS, PY_CMPS, get_attribute, is_runtime, tensor_binop
from .parse import ParsedFunction
from .scope import lookup_global
from .semantics import describe
from .values import Tensor, unwrap
from .visitor import Unit


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple))


def _target_names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _as_tuple(x: Any) -> Any:
    """Lists and tuples are one kind of value in kernel code, as in Triton (where both are
    ``tl.tuple``): ``x.shape == [16]`` and ``[1, 2] == (1, 2)`` hold."""
    return tuple(_as_tuple(unwrap(v)) for v in x) if _is_sequence(x) else x


class ExpressionCodegen:
    """The expression half of FunctionCodegen (a mixin: codegen.py composes it)."""

    unit: Unit
    parsed: ParsedFunction
    scope: dict[str, Any]
    names: NameKinds
    returned: bool

    if TYPE_CHECKING:  # FunctionCodegen's, and StatementCodegen's

        @property
        def b(self) -> Builder: ...

        def located(self, node: ast.AST) -> AbstractContextManager[None]: ...

        def visit_body(self, stmts: list[ast.stmt]) -> None: ...

        def assign(self, target: ast.expr, value: Any) -> None: ...

        def call_node(self, node: ast.Call, result_used: bool = True) -> Any: ...

    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        with self.located(node):
            if method is None:
                raise UnsupportedSyntax(
                    f"{type(node).__name__} expressions are not supported in kernels"
                )
            return method(node)

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def name(self, ident: str) -> Any:
        if ident in self.scope:
            return self.scope[ident]
        return lookup_global(self.parsed.fn, ident)

    def expr_Name(self, node: ast.Name) -> Any:
        return self.name(node.id)

    def expr_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> Any:
        return [self.expr(e) for e in node.elts]

    def expr_JoinedStr(self, node: ast.JoinedStr) -> Any:
        return "".join(str(self.expr(v)) for v in node.values)

    def expr_FormattedValue(self, node: ast.FormattedValue) -> Any:
        value = self.expr(node.value)
        if is_runtime(value):
            raise ConstexprError("f-strings can format only compile-time values")
        if node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion == ord("s"):
            value = str(value)
        spec = self.expr(node.format_spec) if node.format_spec is not None else ""
        return format(value, spec)

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if node.attr == "type":
            found = self.names.type_of(node.value, base)
            if found is not None:
                return found
        return get_attribute(self, base, node.attr)

    def expr_NamedExpr(self, node: ast.NamedExpr) -> Any:
        value = self.expr(node.value)
        self.assign(node.target, value)
        return unwrap(value)

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(base, Tensor):
            return subscript(self, base, index)
        if is_runtime(index):
            raise ConstexprError("only compile-time indices can select from a tuple")
        return unwrap(base)[unwrap(index)]

    def expr_Slice(self, node: ast.Slice) -> Any:
        parts = [
            self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)
        ]
        return slice(*parts)

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        return self.binop(node.op, self.expr(node.left), self.expr(node.right))

    def binop(self, op: ast.operator, x: Any, y: Any) -> Any:
        x, y = unwrap(x), unwrap(y)
        concat = isinstance(op, ast.Add) and _is_sequence(x) and _is_sequence(y)
        if concat and (type(x) is not type(y) or is_runtime(x) or is_runtime(y)):
            return tuple(x) + tuple(y)  # ``x.shape + [1]``, tuples holding tensors
        if not is_runtime(x) and not is_runtime(y):
            return PY_BINOPS[type(op)](x, y)
        return tensor_binop(self.b, op, x, y)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        x = unwrap(self.expr(node.operand))
        if not is_runtime(x):
            py_unary: dict[type, Any] = {
                ast.UAdd: operator.pos,
                ast.USub: operator.neg,
                ast.Not: operator.not_,
                ast.Invert: operator.invert,
            }
            return py_unary[type(node.op)](x)
        if isinstance(node.op, ast.UAdd):
            return x
        if isinstance(node.op, ast.USub):
            return arith.neg(self.b, x)
        if isinstance(node.op, ast.Not):
            return arith.logical_not(self.b, x)
        return arith.invert(self.b, x)

    def expr_Compare(self, node: ast.Compare) -> Any:
        left = self.expr(node.left)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            one = self.compare(op, left, right)
            result = one if result is True else self.logical(True, result, one)
            left = right
        return result

    def compare(self, op: ast.cmpop, x: Any, y: Any) -> Any:
        x, y = unwrap(x), unwrap(y)
        if isinstance(op, (ast.Is, ast.IsNot)):  # identity is known at compile time
            return PY_CMPS[type(op)](x, y)
        if not is_runtime(x) and not is_runtime(y):
            if _is_sequence(x) and _is_sequence(y):
                x, y = _as_tuple(x), _as_tuple(y)
            return PY_CMPS[type(op)](x, y)
        if type(op) not in CMP_NAMES:
            raise UnsupportedSyntax(f"operator {type(op).__name__} is not supported on tensors")
        return arith.compare(self.b, CMP_NAMES[type(op)], x, y)

    def logical(self, is_and: bool, x: Any, y: Any) -> Any:
        if not is_runtime(x) and not is_runtime(y):
            return (x and y) if is_and else (x or y)
        return arith.logical(self.b, is_and, x, y)

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        result = self.expr(node.values[0])
        for value_node in node.values[1:]:
            if not is_runtime(result) and (not result if is_and else result):
                return result  # Python short-circuit on compile-time values
            result = self.logical(is_and, result, self.expr(value_node))
        return result

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        return control_flow.visit_ifexp(self, node)

    def expr_ListComp(self, node: ast.ListComp) -> Any:
        """``[e for x in t]`` over a tuple: unrolled at compile time into a tuple."""
        gen = node.generators[0]
        items = unwrap(self.expr(gen.iter))
        if not isinstance(items, (tuple, list)):
            raise UnsupportedSyntax(
                f"comprehensions in kernels iterate over tuples only, not {describe(items)}"
            )
        # the loop variables are the comprehension's own, as in Python
        saved = {n: self.scope[n] for n in _target_names(gen.target) if n in self.scope}
        results = []
        try:
            for item in items:
                self.assign(gen.target, item)
                results.append(self.expr(node.elt))
        finally:
            for n in _target_names(gen.target):
                self.scope.pop(n, None)
            self.scope.update(saved)
        return tuple(results)
