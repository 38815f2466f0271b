"""The source fingerprint of a kernel: its code plus every @jit function and constant it uses.

Walks the names the function's code refers to (globals, closure cells, attributes of imported
modules), recursing into @jit callees, so editing a helper or a constexpr global changes the
kernel's cache key. Computed once per JITFunction.
"""

from __future__ import annotations

import hashlib
import linecache
import marshal
import types
from collections.abc import Callable, Iterator
from typing import Any

_CONSTANT_TYPES = (int, float, bool, str, bytes, type(None))


def _names(code: types.CodeType) -> Iterator[str]:
    """Every global/attribute name used by ``code`` and the code objects nested in it."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _last_line(code: types.CodeType) -> int:
    """The last source line with code in ``code`` or the functions nested in it."""
    last = max((line for _, _, line in code.co_lines() if line is not None), default=0)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_line(const))
    return last


def _source(fn: Callable[..., Any]) -> str:
    """The lines of ``fn``'s definition, decorators to its last line of code, from linecache:
    inspect.getsource would tokenize the block (~5 ms of a warm-cache first call)."""
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    text = "".join(lines[code.co_firstlineno - 1 : _last_line(code)])
    # defined in exec'd code or a REPL: fall back to the bytecode
    return text or marshal.dumps(code).hex()


def _is_jit(obj: Any) -> bool:
    return bool(getattr(obj, "__tilec_jit__", False))


def _constant_repr(value: Any) -> str | None:
    """A stable text for a global the kernel may fold, or None when it is not a constant."""
    if type(value).__name__ == "constexpr" and hasattr(value, "value"):
        value = value.value
    if isinstance(value, _CONSTANT_TYPES):
        return f"{type(value).__name__}:{value!r}"
    if type(value).__name__ in ("ScalarType", "PointerType"):
        return f"dtype:{value}"
    return None


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not assigned yet
        return None


def _dependencies(fn: Callable[..., Any]) -> Iterator[tuple[str, Any]]:
    """(name, value) of the globals and closure variables ``fn`` refers to."""
    glob = getattr(fn, "__globals__", {})
    code = fn.__code__
    cells = dict(zip(code.co_freevars, [_cell(c) for c in fn.__closure__ or ()]))
    names = sorted(set(_names(code)))
    modules = [glob[n] for n in names if isinstance(glob.get(n), types.ModuleType)]
    for name in names:
        if name in cells:
            yield name, cells[name]
        elif name in glob:
            yield name, glob[name]
        else:
            for module in modules:  # ``helpers.fn(...)``: an attribute of an imported module
                value = getattr(module, name, None)
                if _is_jit(value):
                    yield f"{module.__name__}.{name}", value


def _same_module_function(value: Any, fn: Callable[..., Any]) -> bool:
    return isinstance(value, types.FunctionType) and value.__module__ == fn.__module__


def fingerprint(fn: Callable[..., Any]) -> str:
    """SHA-256 (hex) over ``fn``'s source and its dependencies, recursively."""
    h = hashlib.sha256()
    seen: set[int] = set()
    pending = [fn]
    while pending:
        f = pending.pop()
        f = getattr(f, "fn", f) if _is_jit(f) else f
        if id(f) in seen or not hasattr(f, "__code__"):
            continue
        seen.add(id(f))
        h.update(f"{f.__qualname__}\n{_source(f)}\n".encode())
        for name, value in _dependencies(f):
            if _is_jit(value):
                h.update(f"jit {name}\n".encode())
                pending.append(value)
            elif _same_module_function(value, f):
                # a plain helper from the kernel's own file may run at compile time on
                # constexprs (block sizes...), so its source counts too
                h.update(f"helper {name}\n".encode())
                pending.append(value)
            else:
                text = _constant_repr(value)
                if text is not None:
                    h.update(f"const {name}={text}\n".encode())
    return h.hexdigest()
