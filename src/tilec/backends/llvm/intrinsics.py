"""Declare and call LLVM intrinsics and external C functions by name, once per module."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir


def _suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_suffix(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.HalfType):
        return "f16"
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


def call_unary(b: ir.IRBuilder, base: str, x: ir.Value) -> ir.Value:
    """``llvm.<base>.<type>(x)`` (sqrt, fabs, floor, ceil, trunc, rint, ...)."""
    fn = overloaded(b.module, f"llvm.{base}", x.type, [x.type], [x.type])
    return b.call(fn, [x])


def call_same(b: ir.IRBuilder, base: str, *xs: ir.Value) -> ir.Value:
    """``llvm.<base>.<type>(xs...)`` where every operand and the result share one type."""
    t = xs[0].type
    fn = overloaded(b.module, f"llvm.{base}", t, [t] * len(xs), [t])
    return b.call(fn, list(xs))
