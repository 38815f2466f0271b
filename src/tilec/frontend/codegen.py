"""The AST visitor that turns one Python function into tile IR, statement by statement.

Run-time values are Tensors backed by IR values; everything else is evaluated in Python at
compile time (constexpr folding). Calls to other @jit functions are inlined by visiting their
bodies with a fresh scope. Control flow lives in control_flow.py, operators in arith.py.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
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
from . import arith, control_flow
from .builtin import BoundMethod
from .builtins_debug import device_assert, static_assert
from .builtins_shape import subscript
from .check import check_function
from .decay import NameKinds, is_constexpr_node
from .operators import (
    CMP_NAMES,
    INTROSPECTION,
    PY_BINOPS,
    PY_CMPS,
    get_attribute,
    is_runtime,
    map_python_builtin,
    tensor_binop,
)
from .parse import ParsedFunction, parse_function
from .scope import lookup_global
from .semantics import describe
from .values import Tensor, is_aggregate, unwrap
from .visitor import Unit

RETURN = "$return"  # the scope slot holding a function's return value


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


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple))


def _target_names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _as_tuple(x: Any) -> Any:
    """Lists and tuples are one kind of value in kernel code, as in Triton (where both are
    ``tl.tuple``): ``x.shape == [16]`` and ``[1, 2] == (1, 2)`` hold."""
    return tuple(_as_tuple(unwrap(v)) for v in x) if _is_sequence(x) else x


class FunctionCodegen:
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

    # -- statements ----------------------------------------------------------------------
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

    # -- expressions ---------------------------------------------------------------------
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

    # -- calls ---------------------------------------------------------------------------
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
