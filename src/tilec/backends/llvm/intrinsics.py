"""Declare and call LLVM intrinsics and external C functions by name, once per module.

Both backends declare through here: target-independent intrinsics (``llvm.fma.f32``,
``llvm.ctlz.i32``) by the overloaded calls, a target's own (``llvm.nvvm.*``) and library
functions (libm, libdevice) by :func:`declare`.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from .types import BFloatType


def _suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, BFloatType):
        return "bf16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.PointerType):
        return "p0"
    return str(t)


def declare(
    module: ir.Module, name: str, ret: ir.Type, args: Sequence[ir.Type], var_arg: bool = False
) -> ir.Function:
    """The function ``name`` in ``module``, declared on first use."""
    existing = module.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing
    return ir.Function(module, ir.FunctionType(ret, list(args), var_arg=var_arg), name)


def overloaded(
    module: ir.Module, base: str, ret: ir.Type, args: Sequence[ir.Type], keys: Sequence[ir.Type]
) -> ir.Function:
    """An overloaded intrinsic such as ``llvm.fma.f32``: ``keys`` name its overload types."""
    name = base + "".join("." + _suffix(k) for k in keys)
    return declare(module, name, ret, args)


def call(
    b: ir.IRBuilder, base: str, args: Sequence[ir.Value], ret: ir.Type | None = None
) -> ir.Value:
    """``llvm.<base>.<type>(args...)``, overloaded on the first operand's type, which is also
    the result's unless ``ret`` is given (``llvm.ctlz.i32(x, i1 false)``, ``llvm.fma.f32``)."""
    t = args[0].type
    fn = overloaded(b.module, f"llvm.{base}", ret or t, [a.type for a in args], [t])
    return b.call(fn, list(args))


def call_unary(b: ir.IRBuilder, base: str, x: ir.Value) -> ir.Value:
    """``llvm.<base>.<type>(x)`` (sqrt, fabs, floor, ceil, trunc, rint, ...)."""
    return call(b, base, [x])


def call_same(b: ir.IRBuilder, base: str, *xs: ir.Value) -> ir.Value:
    """``llvm.<base>.<type>(xs...)`` where every operand and the result share one type."""
    return call(b, base, xs)
