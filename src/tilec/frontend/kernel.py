"""``build_module``: bind a kernel's parameters from its ArgSpecs and generate its FuncOp."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import CompileError, UnsupportedFeature, UsageError, with_cause
from ..ir.argspec import ArgKind, ArgSpec, leaves
from ..ir.builder import Builder
from ..ir.core import Value
from ..ir.ops import FuncOp, ModuleOp
from ..ir.verify import verify
from ..source import SourceLoc
from . import fp8
from .builtins_blockptr import make_tensor_descriptor
from .check import check_function
from .codegen import RETURN, FunctionCodegen
from .const_pointers import is_const_annotation, mark
from .parse import parse_function
from .values import Tensor, unwrap
from .visitor import Unit


def _bound(cg: FunctionCodegen, spec: ArgSpec, args: Iterator[Value]) -> Any:
    """The kernel value of one argument, taking its run-time parameters from ``args``."""
    if spec.kind is ArgKind.CONSTEXPR:
        return unwrap(spec.value)
    if spec.kind is ArgKind.NONE:
        return None
    if spec.kind is ArgKind.TUPLE:  # rebuilt from its leaves, a named tuple as its class
        python_type, elements = spec.value
        items = [_bound(cg, e, args) for e in elements]
        return python_type(*items) if hasattr(python_type, "_fields") else tuple(items)
    if spec.kind is ArgKind.DESCRIPTOR:  # built in the kernel, as tl.make_tensor_descriptor
        block, padding, elements = spec.value
        base, *sizes = [_bound(cg, e, args) for e in elements]
        shape, strides = sizes[: len(block)], [*sizes[len(block) :], 1]
        return make_tensor_descriptor.invoke(cg, [base, shape, strides, list(block), padding], {})
    if spec.equals_one:
        return 1  # Triton specializes integers equal to 1 as constants
    return Tensor(next(args))


def _bind(
    cg: FunctionCodegen, params: list[inspect.Parameter], specs: Sequence[ArgSpec], func: FuncOp
) -> None:
    args = iter(func.args)
    for param, spec in zip(params, specs):
        value = cg.scope[param.name] = _bound(cg, spec, args)
        if is_const_annotation(param.annotation) and isinstance(value, Tensor):
            mark(cg.unit, value)


def build_module(fn: Any, specs: Sequence[ArgSpec], *, name: str | None = None) -> ModuleOp:
    """Compile the Python function ``fn`` for ``specs`` (one per parameter) into tile IR."""
    try:
        return _build(fn, specs, name)
    except CompileError as exc:  # Triton's structure: the cause carries the plain message
        raise with_cause(exc) from exc.__cause__
    except RecursionError as exc:  # the AST visitors recurse once per nesting level
        code = getattr(fn, "__code__", None)
        where = getattr(exc, "tilec_loc", None) or (
            SourceLoc(code.co_filename, code.co_firstlineno) if code is not None else None
        )
        raise UnsupportedFeature(
            "kernel code nested too deeply (expressions, blocks or @jit calls) for Python's "
            f"recursion limit ({sys.getrecursionlimit()}); split it into smaller steps",
            where,
        ) from None


def _build(fn: Any, specs: Sequence[ArgSpec], name: str | None) -> ModuleOp:
    parsed = parse_function(fn)
    check_function(parsed)
    params = list(inspect.signature(fn).parameters.values())
    if len(params) != len(specs):
        raise UsageError(
            f"{fn.__name__} has {len(params)} parameters but {len(specs)} argument specs were given"
        )
    loc = parsed.loc(None)
    module = ModuleOp(loc)
    func = FuncOp(name or fn.__name__, [s for s in leaves(specs) if s.is_runtime], loc)
    module.body.append(func)
    unit = Unit(Builder(func.body, loc))
    unit.stack.append(fn)
    codegen = FunctionCodegen(unit, parsed, {})
    _bind(codegen, params, specs, func)
    codegen.visit_body(parsed.node.body)
    if codegen.scope.get(RETURN) is not None:
        raise UnsupportedFeature(
            "kernels cannot return values; store results through a pointer instead",
            parsed.loc(None),
        )
    unit.b.set_insertion_point_to_end(func.body)
    unit.b.ret()
    fp8.reject_compute(module)
    verify(module)
    return module
