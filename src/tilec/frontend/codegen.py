"""The AST visitor that turns one Python function into tile IR, statement by statement.

Run-time values are Tensors backed by IR values; everything else is evaluated in Python at
compile time (constexpr folding). FunctionCodegen composes the statement methods
(codegen_statements.py) and the expression methods (codegen_expressions.py) with what they
share (the scope, source locations) and calls: builtins run, other @jit functions are inlined
by visiting their bodies with a fresh scope. Control flow lives in control_flow.py, operators
in arith.py.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import (
    CompileError,
    ConstexprError,
    TilecError,
    TileTypeError,
    UnsupportedFeature,
    UnsupportedSyntax,
)
from ..ir.builder import Builder
from ..source import SourceLoc
from .builtin import BoundMethod
from .check import check_function
from .codegen_expressions import ExpressionCodegen
from .codegen_statements import RETURN, StatementCodegen
from .decay import NameKinds
from .operators import INTROSPECTION, is_runtime, map_python_builtin
from .parse import ParsedFunction, parse_function
from .semantics import describe
from .values import is_aggregate, unwrap
from .visitor import Unit


def _python_call_error(fn: Any) -> CompileError:
    """Why a plain Python callable cannot take run-time tensors."""
    name = getattr(fn, "__qualname__", repr(fn))
    if getattr(builtins, name, None) is fn or isinstance(fn, type):
        return ConstexprError(f"{name}() needs compile-time values, not run-time tensors")
    return UnsupportedFeature(
        f"calling the Python function {name} with tensor arguments is not supported; "
        "decorate it with @tilec.jit"
    )


def _check_result_unused(node: ast.Call, fn: Any) -> None:
    """Triton's ``must_use_result``: a marked function called as a bare statement is an error."""
    fn = unwrap(fn)
    target = fn.fn if isinstance(fn, BoundMethod) else fn
    note = getattr(target, "_must_use_result", False)
    if note:
        message = f"The result of {ast.unparse(node.func)} is not being used."
        raise CompileError(f"{message} {note}" if isinstance(note, str) else message)


class FunctionCodegen(StatementCodegen, ExpressionCodegen):
    """Generates IR for one function body (the kernel, or an inlined @jit callee)."""

    def __init__(self, unit: Unit, parsed: ParsedFunction, scope: dict[str, Any]) -> None:
        self.unit = unit
        self.parsed = parsed
        self.scope = scope
        self.returned = False
        self.names = NameKinds.of_function(parsed.fn)

    @property
    def b(self) -> Builder:
        return self.unit.b

    def loc(self, node: ast.AST | None) -> SourceLoc:
        return self.parsed.loc(node)

    @contextmanager
    def located(self, node: ast.AST) -> Iterator[None]:
        """Stamp ops with ``node``'s location and attach it to errors raised without one."""
        loc = self.loc(node)
        try:
            with self.b.at_loc(loc):
                yield
        except CompileError as e:
            if e.loc is None:
                raise type(e)(e.message, loc) from None
            raise
        except TilecError:
            raise
        except RecursionError as e:  # reported once, by build_module, at the deepest node
            if not hasattr(e, "tilec_loc"):
                e.tilec_loc = loc  # type: ignore[attr-defined]
            raise
        except Exception as e:
            raise CompileError(f"{type(e).__name__}: {e}", loc) from e

    # -- calls ---------------------------------------------------------------------------
    def expr_Call(self, node: ast.Call) -> Any:
        return self.call_node(node)

    def call_node(self, node: ast.Call, result_used: bool = True) -> Any:
        fn = self.expr(node.func)
        if not result_used:
            _check_result_unused(node, fn)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):  # ``f(*t)``: the elements of a tuple, as in Triton
                args += self._unpacked(a.value)
            else:
                args.append(self.expr(a))
        kwargs = {kw.arg: self.expr(kw.value) for kw in node.keywords if kw.arg is not None}
        return self.call(fn, args, kwargs)

    def _unpacked(self, node: ast.expr) -> list[Any]:
        value = unwrap(self.expr(node))
        if not isinstance(value, (tuple, list)):
            with self.located(node):
                raise TileTypeError(
                    f"only a tuple can be unpacked with '*' in a kernel, not {describe(value)}"
                )
        return list(value)

    def call(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        fn = unwrap(fn)
        if isinstance(fn, BoundMethod):
            args = [fn.self_value, *args]
            fn = fn.fn
        if getattr(fn, "__tilec_builtin__", False):
            return fn.invoke(self, args, kwargs)
        if getattr(fn, "__tilec_library__", False):
            try:
                return self.inline(fn.fn, args, kwargs)
            except CompileError as e:  # report a misuse of tl.sort etc. at the user's call
                raise type(e)(e.message) from None
        if getattr(fn, "__tilec_jit__", False):
            return self.inline(fn.fn, args, kwargs)
        if isinstance(fn, type) and getattr(fn, "__tilec_aggregate__", False):
            return self.construct_aggregate(fn, args, kwargs)
        if isinstance(fn, type) and issubclass(fn, tuple) and hasattr(fn, "_fields"):
            # a named tuple holds kernel values (tensors too) like any tuple, as in Triton
            return fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
        if getattr(fn, "__tilec_takes_kernel_values__", False) or (
            inspect.ismethod(fn) and is_aggregate(fn.__self__)
        ):
            # aggregate_replace, and an aggregate's plain methods, run at compile time on
            # whatever values they are given (tensors too)
            return fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
        mapped = map_python_builtin(fn, args, kwargs)
        if mapped is not None:
            return self.call(mapped, args, kwargs)
        if fn in INTROSPECTION:
            return fn(*[unwrap(a) for a in args])
        if not callable(fn):
            raise TileTypeError(f"'{type(fn).__name__}' object is not callable")
        if any(is_runtime(a) for a in [*args, *kwargs.values()]):
            raise _python_call_error(fn)
        return fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})

    def construct_aggregate(self, cls: type, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """``cls(*args)`` for an aggregate class: its __init__ inlined when it is @jit, else
        run at compile time; every field must be set by the end."""
        init = cls.__aggregate_init__  # type: ignore[attr-defined]
        instance = object.__new__(cls)
        object.__setattr__(instance, "_aggregate_done", False)
        if getattr(init, "__tilec_jit__", False):
            self.inline(init.fn, [instance, *args], kwargs)
        else:
            init(instance, *[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
        instance._finish()
        return instance

    def inline(self, fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Inline the @jit function ``fn``: bind its parameters and visit its body."""
        if fn in self.unit.stack:
            raise UnsupportedSyntax(f"recursive call to {fn.__name__} is not supported in kernels")
        parsed = parse_function(fn)
        check_function(parsed)
        sig = inspect.signature(fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TileTypeError(f"{fn.__name__}(): {e}") from None
        bound.apply_defaults()
        scope: dict[str, Any] = {}
        # As in Triton, a callee's tl.constexpr annotation specializes only compile-time
        # arguments; a run-time value passed there is bound as an ordinary value.
        for pname, value in bound.arguments.items():
            scope[pname] = unwrap(value)
        sub = FunctionCodegen(self.unit, parsed, scope)
        self.unit.stack.append(fn)
        try:
            sub.visit_body(parsed.node.body)
        finally:
            self.unit.stack.pop()
        return sub.scope.get(RETURN)
