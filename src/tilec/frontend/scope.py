"""Name resolution for kernel code: locals, then the function's globals and closure, then the
few Python builtins kernels may call. Globals must be compile-time values (constexpr)."""

from __future__ import annotations

import builtins
import enum
import types
from typing import Any

from ..constexpr import constexpr
from ..errors import CompileError, ConstexprError
from ..ir.types import PointerType, ScalarType
from .values import unwrap

# Python builtins a kernel may call; calls on run-time tensors are mapped in codegen.
PY_BUILTINS: dict[str, Any] = {
    name: getattr(builtins, name)
    for name in (
        "range",
        "len",
        "min",
        "max",
        "int",
        "float",
        "bool",
        "isinstance",
        "print",
        "tuple",
        "zip",
        "enumerate",
        "getattr",
        "hasattr",
        "str",
        "abs",
        "all",
        "any",
        "reversed",
        "list",
        "repr",
        "round",
        "divmod",
        "pow",
        "type",
    )
}

_SCALARS = (bool, int, float, str, bytes, type(None), ScalarType, PointerType, enum.Enum)


def _allowed_global(value: Any) -> bool:
    if getattr(value, "__tilec_jit__", False) or getattr(value, "__tilec_builtin__", False):
        return True
    if isinstance(value, (constexpr, *_SCALARS, types.ModuleType)) or callable(value):
        return not hasattr(value, "__array_interface__") and not hasattr(value, "data_ptr")
    if isinstance(value, tuple):
        return all(_allowed_global(v) for v in value)
    return False


def lookup_global(fn: Any, name: str) -> Any:
    """Resolve ``name`` in ``fn``'s closure, then its globals, then the allowed builtins."""
    code = getattr(fn, "__code__", None)
    closure = getattr(fn, "__closure__", None)
    if code is not None and closure and name in code.co_freevars:
        try:
            return _checked(name, closure[code.co_freevars.index(name)].cell_contents)
        except ValueError:  # an empty cell: the variable was never assigned
            pass
    env = getattr(fn, "__globals__", {})
    if name in env:
        return _checked(name, env[name])
    if name in PY_BUILTINS:
        return PY_BUILTINS[name]
    raise CompileError(f"name '{name}' is not defined")


def _checked(name: str, value: Any) -> Any:
    if not _allowed_global(value):
        raise ConstexprError(
            f"global '{name}' is a {type(value).__name__}; kernels may only read compile-time "
            f"globals (numbers, dtypes, functions, or values wrapped in tl.constexpr)"
        )
    return unwrap(value)
