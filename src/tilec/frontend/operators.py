"""Operators and attributes on kernel values: Python's operators on tensors and constants,
tensor attributes and methods, and the Python builtins that map to tl functions."""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import operator
from collections.abc import Callable
from typing import Any

from ..errors import CompileError, TileTypeError, UnsupportedSyntax
from ..ir.builder import Builder
from ..ir.ops import BinaryKind as BK
from . import arith, builtins_debug, builtins_math
from . import semantics as S
from .builtin import METHODS, BoundMethod
from .builtins_blockptr import struct_attribute
from .builtins_shape import tensor_attribute
from .tuple_type import tuple_type
from .values import Struct, Tensor, is_aggregate, leaves, unwrap
from .visitor import Visitor

PY_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.MatMult: operator.matmul,
}
CMP_NAMES = {
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
}
PY_CMPS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, c: a in c,
    ast.NotIn: lambda a, c: a not in c,
}


def is_runtime(x: Any) -> bool:
    return isinstance(x, (Tensor, *Struct)) or bool(leaves(x))


INTROSPECTION = (
    builtins.isinstance,
    builtins.type,
    builtins.hasattr,
    builtins.getattr,
    builtins.len,
)


def _check_constant_min_max(fn: Any, args: list[Any]) -> None:
    """As in Triton, min/max of compile-time numbers refuse NaN and -0.0: Python's answer then
    depends on the argument order, unlike tl.minimum/maximum on the device."""
    values = args[0] if len(args) == 1 and isinstance(unwrap(args[0]), (tuple, list)) else args
    for v in map(unwrap, values):
        if isinstance(v, float) and (math.isnan(v) or (v == 0.0 and math.copysign(1.0, v) < 0)):
            which = "NaN" if math.isnan(v) else "negative zero"
            raise TileTypeError(
                f"{fn.__name__}() of compile-time values does not support {which}: Python's "
                f"result depends on the argument order; use tl.{fn.__name__}imum on tensors"
            )


def map_python_builtin(fn: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """min/max/abs on tensors become tl.minimum/maximum/abs and print becomes device_print,
    whatever its arguments (as in Triton)."""
    if fn not in (builtins.min, builtins.max, builtins.abs, builtins.print):
        return None
    if fn is builtins.print:  # Triton's kernels know only device_print: constants print too
        return builtins_debug.device_print_args
    if not any(is_runtime(a) for a in args):
        if fn in (builtins.min, builtins.max):
            _check_constant_min_max(fn, args)
        return None
    return {
        builtins.min: builtins_math.minimum,
        builtins.max: builtins_math.maximum,
        builtins.abs: builtins_math.abs_,
        builtins.print: builtins_debug.device_print_args,
    }[fn]


_TENSOR_BINOPS: dict[type, Callable[..., Tensor]] = {
    ast.Add: arith.add,
    ast.Sub: arith.sub,
    ast.Mult: arith.mul,
    ast.Div: arith.truediv,
    ast.FloorDiv: arith.floordiv,
    ast.Mod: arith.mod,
    ast.BitAnd: lambda b, x, y: arith.bitwise(b, BK.AND, x, y),
    ast.BitOr: lambda b, x, y: arith.bitwise(b, BK.OR, x, y),
    ast.BitXor: lambda b, x, y: arith.bitwise(b, BK.XOR, x, y),
    ast.LShift: lambda b, x, y: arith.shift(b, True, x, y),
    ast.RShift: lambda b, x, y: arith.shift(b, False, x, y),
}


def tensor_binop(b: Builder, op: ast.operator, x: Any, y: Any) -> Tensor:
    fn = _TENSOR_BINOPS.get(type(op))
    if fn is None:
        hint = {ast.Pow: "; use tl.extra.libdevice.pow", ast.MatMult: "; use tl.dot"}
        raise UnsupportedSyntax(
            f"operator {type(op).__name__} is not supported on tensors{hint.get(type(op), '')}"
        )
    for v in (x, y):
        if isinstance(v, Struct):
            raise TileTypeError(
                f"operator {type(op).__name__} is not defined for "
                f"{type(v).__name__}; use tl.advance to move a block pointer"
            )
    return fn(b, x, y)


def _tuple_type(cg: Visitor, values: tuple[Any, ...]) -> Any:
    """``t.type`` of a kernel tuple: Triton's tuple_type of its element types."""

    def type_of(v: Any) -> Any:
        v = unwrap(v)
        if isinstance(v, tuple):
            return _tuple_type(cg, v)
        if isinstance(v, Tensor):
            return v.type
        if S.is_number(v):
            return S.python_type(v)
        raise TileTypeError(f"tuple element {S.describe(v)} has no type in tilec")

    return tuple_type([type_of(v) for v in values], getattr(values, "_fields", None))


def get_attribute(cg: Visitor, base: Any, attr: str) -> Any:
    """``base.attr`` for tensors (dtype, shape, T, methods), structs and Python objects."""
    base = unwrap(base)
    if isinstance(base, Tensor):
        found = tensor_attribute(cg, base, attr)
        if found is not None:
            return found
        if attr in METHODS:  # builtins and tl library functions marked as members
            return BoundMethod(METHODS[attr], base)
        raise TileTypeError(f"tensor has no attribute '{attr}'")
    if isinstance(base, Struct):
        return struct_attribute(base, attr)
    if is_aggregate(base):
        member = inspect.getattr_static(type(base), attr, None)
        if getattr(member, "__tilec_jit__", False):  # a @jit method: inlined with self bound
            return BoundMethod(member, base)
    if isinstance(base, tuple) and attr == "type":
        return _tuple_type(cg, base)
    if S.is_number(base) and not hasattr(base, attr):
        # Triton makes a number assigned to a plain name a tensor, so ``v = 1; v.dtype`` and
        # ``v.to(...)`` work; here it stays a constant until a tensor's attribute is asked for
        return get_attribute(cg, S.to_tensor(cg.b, base), attr)
    try:
        return unwrap(getattr(base, attr))
    except CompileError:  # e.g. UnsupportedName: a Triton name tilec does not provide
        raise
    except AttributeError:
        raise CompileError(f"{type(base).__name__} has no attribute '{attr}'") from None
