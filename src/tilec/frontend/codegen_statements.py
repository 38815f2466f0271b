"""FunctionCodegen's statements: one ``stmt_<Node>`` method per supported Python statement.

Assignments bind names in the scope (compile-time values stay Python values); ``if``, ``for``
and ``while`` go to control_flow.py; ``return`` stores its value in the RETURN slot and marks
the rest of the block dead; ``assert`` is a device assert on a run-time condition, else static.
"""

from __future__ import annotations

import ast
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ..errors import TileTypeError, UnsupportedSyntax
from ..ir.builder import Builder
from . import control_flow
from .builtins_debug import device_assert, static_assert
from .decay import NameKinds, is_constexpr_node
from .operators import is_runtime
from .values import is_aggregate, unwrap
from .visitor import Unit

RETURN = "$return"  # the scope slot holding a function's return value


class StatementCodegen:
    """The statement half of FunctionCodegen (a mixin: codegen.py composes it)."""

    unit: Unit
    scope: dict[str, Any]
    names: NameKinds
    returned: bool

    if TYPE_CHECKING:  # FunctionCodegen's, and ExpressionCodegen's

        @property
        def b(self) -> Builder: ...

        def located(self, node: ast.AST) -> AbstractContextManager[None]: ...

        def expr(self, node: ast.expr) -> Any: ...

        def name(self, ident: str) -> Any: ...

        def binop(self, op: ast.operator, x: Any, y: Any) -> Any: ...

        def call_node(self, node: ast.Call, result_used: bool = True) -> Any: ...

    def visit_body(self, stmts: list[ast.stmt]) -> None:
        for i, stmt in enumerate(stmts):
            with self.located(stmt):
                if isinstance(stmt, ast.If):
                    control_flow.visit_if(self, stmt, stmts[i + 1 :])
                else:
                    self.visit_stmt(stmt)
            if self.returned:
                return

    def visit_stmt(self, node: ast.stmt) -> None:
        method = getattr(self, f"stmt_{type(node).__name__}", None)
        if method is None:
            raise UnsupportedSyntax(
                f"{type(node).__name__} statements are not supported in kernels"
            )
        method(node)

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        if isinstance(node.value, ast.Call):  # a call whose result is dropped
            with self.located(node.value):
                self.call_node(node.value, result_used=False)
            return
        self.expr(node.value)

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Raise(self, node: ast.Raise) -> None:
        raise UnsupportedSyntax(
            "raise statements are not supported in kernels, except in a branch that a "
            "compile-time condition leaves out"
        )

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and is_constexpr_node(node.annotation):
            self.names.annotate(node.target.id)
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise UnsupportedSyntax("augmented assignment is supported only to plain names")
        current = self.name(node.target.id)
        self.assign(node.target, self.binop(node.op, current, self.expr(node.value)))

    def stmt_Return(self, node: ast.Return) -> None:
        self.scope[RETURN] = self.expr(node.value) if node.value is not None else None
        self.returned = True

    def stmt_For(self, node: ast.For) -> None:
        control_flow.visit_for(self, node)

    def stmt_While(self, node: ast.While) -> None:
        control_flow.visit_while(self, node)

    def stmt_Assert(self, node: ast.Assert) -> None:
        cond = self.expr(node.test)
        msg = self.expr(node.msg) if node.msg is not None else ""
        if is_runtime(cond):
            device_assert.invoke(self, [cond, msg], {})
        else:
            static_assert.invoke(self, [cond, msg], {})

    def assign(self, target: ast.expr, value: Any) -> None:
        with self.located(target):
            if isinstance(target, ast.Name):
                self.scope[target.id] = unwrap(value)
                self.names.assigned(target.id, value)
            elif isinstance(target, (ast.Tuple, ast.List)):
                value = unwrap(value)
                if not isinstance(value, (tuple, list)):
                    raise TileTypeError(
                        f"cannot unpack {type(value).__name__} into {len(target.elts)} names"
                    )
                if len(value) != len(target.elts):
                    raise TileTypeError(
                        f"cannot unpack {len(value)} values into {len(target.elts)} names"
                    )
                for t, v in zip(target.elts, value):
                    self.assign(t, v)
            elif isinstance(target, ast.Attribute) and is_aggregate(self.expr(target.value)):
                # an aggregate's @jit __init__ filling a field (refused once it is built)
                setattr(self.expr(target.value), target.attr, value)
            else:
                raise UnsupportedSyntax(
                    "kernels can assign only to names and tuples of names; "
                    "use tl.store to write memory"
                )
