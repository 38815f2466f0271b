"""Reject Python syntax that kernels may not use, before any IR is generated.

Kernels are a subset of Python: no classes, lambdas, exception handling (a ``raise`` is refused
when code generation reaches it, so one in a branch a compile-time condition leaves out is
allowed, as in Triton), context managers, generators,
comprehensions other than a list over a tuple, global/nonlocal, del, ``*`` other than unpacking
a tuple into a call (or collecting ``*args``), ``**kwargs``, break/continue, returns inside
loops, or ``:=`` where its name would not outlive the expression (a while loop's condition, a
branch of a conditional expression, a comprehension).
One pass over the AST finds the first offender and reports it with its location.
"""

from __future__ import annotations

import ast

from ..errors import UnsupportedSyntax
from .parse import ParsedFunction

_FORBIDDEN: dict[type, str] = {
    ast.ClassDef: "class definitions",
    ast.Lambda: "lambda expressions",
    ast.Try: "try statements",
    ast.With: "with statements",
    ast.AsyncWith: "async with statements",
    ast.AsyncFor: "async for loops",
    ast.AsyncFunctionDef: "async functions",
    ast.Await: "await expressions",
    ast.Yield: "yield (generators)",
    ast.YieldFrom: "yield from (generators)",
    ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements",
    ast.Delete: "del statements",
    ast.Import: "import statements",
    ast.ImportFrom: "import statements",
    ast.SetComp: "set comprehensions",
    ast.DictComp: "dict comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.Dict: "dict displays",
    ast.Set: "set displays",
    ast.Starred: "starred expressions other than f(*tuple)",
    ast.Break: "break",
    ast.Continue: "continue",
    ast.FunctionDef: "nested function definitions",
}
if hasattr(ast, "TryStar"):
    _FORBIDDEN[ast.TryStar] = "try statements"
if hasattr(ast, "Match"):
    _FORBIDDEN[ast.Match] = "match statements"


class _Checker(ast.NodeVisitor):
    def __init__(self, parsed: ParsedFunction) -> None:
        self.parsed = parsed
        self.loop_depth = 0

    def fail(self, node: ast.AST, what: str) -> None:
        raise UnsupportedSyntax(f"{what} are not supported in kernels", self.parsed.loc(node))

    def generic_visit(self, node: ast.AST) -> None:
        what = _FORBIDDEN.get(type(node))
        if what is not None:
            if isinstance(node, (ast.Break, ast.Continue)):
                raise UnsupportedSyntax(
                    f"'{what}' is not supported in kernels; restructure the loop with a condition",
                    self.parsed.loc(node),
                )
            self.fail(node, what)
        super().generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(kw.value, "**keyword arguments")
        self.visit(node.func)
        for arg in node.args:  # ``f(*t)`` unpacks a tuple, as in Triton; elsewhere it is refused
            self.visit(arg.value if isinstance(arg, ast.Starred) else arg)
        for kw in node.keywords:
            self.visit(kw.value)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        """``[e for x in t]`` over a tuple, as in Triton: one ``for``, no ``if``."""
        if len(node.generators) != 1:
            self.fail(node, "nested comprehensions")
        if node.generators[0].ifs:
            self.fail(node.generators[0].ifs[0], "'if' clauses in comprehensions")
        self._no_named_expr(node, "comprehensions")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._no_named_expr(node.body, "conditional expression branches")
        self._no_named_expr(node.orelse, "conditional expression branches")
        self.generic_visit(node)

    def _no_named_expr(self, node: ast.AST, where: str) -> None:
        """A while loop's condition and a run-time conditional expression's branches are
        generated into regions of their own, and a comprehension is unrolled in a scope of
        its own: a ``:=`` there would bind a name the code after it could not use, so it is
        refused rather than silently dropped."""
        for inner in ast.walk(node):
            if isinstance(inner, ast.NamedExpr):
                self.fail(inner, f"assignment expressions (:=) in {where}")

    def _loop(self, node: ast.For | ast.While) -> None:
        if node.orelse:
            self.fail(node.orelse[0], "else clauses on loops")
        if isinstance(node, ast.While):
            self._no_named_expr(node.test, "while loop conditions")
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1

    visit_For = _loop
    visit_While = _loop

    def visit_Return(self, node: ast.Return) -> None:
        if self.loop_depth:
            # Triton's wording, which its tests match, followed by tilec's advice
            raise UnsupportedSyntax(
                "Cannot have `return` statements inside `while` or `for` statements in triton "
                "kernels; compute the result in the loop and return after it",
                self.parsed.loc(node),
            )
        self.generic_visit(node)


def check_function(parsed: ParsedFunction) -> None:
    """Raise UnsupportedSyntax at the first construct kernels may not use."""
    fn = parsed.node
    args = fn.args
    if args.kwarg is not None:  # (*args is bound as a tuple, as in Triton)
        raise UnsupportedSyntax(
            "**kwargs parameters are not supported in kernels", parsed.loc(args.kwarg)
        )
    checker = _Checker(parsed)
    for stmt in fn.body:
        checker.visit(stmt)
