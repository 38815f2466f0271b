"""Where a kernel's source text comes from when no file holds it.

A kernel defined in a file is read through ``inspect``/``linecache`` (parse.py), which also finds
text that tools register in ``linecache`` (IPython cells, doctest). Two other sources are kept
here, per function object: text the caller supplies (``JITFunction._unsafe_update_src``), and the
text of code run by ``exec(source_string)``, which Python keeps nowhere: when a kernel is
decorated inside exec'd code, the string is found among the exec caller's local variables and
accepted only if compiling it reproduces the running code object exactly (bytecode, constants
and every line and column), so a wrong text can never be taken for the kernel's.
"""

from __future__ import annotations
import __future__

import ast
import inspect
import linecache
import re
import sys
import textwrap
import types
import weakref
from dataclasses import dataclass
from typing import Any

from .errors import UnsupportedFeature, UsageError

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_MAX_FRAMES = 16  # the @jit decorator sits a few frames below the exec'd code
_MAX_TEXT = 1 << 20  # longer strings are not source text worth compiling to compare


@dataclass(frozen=True)
class SuppliedSource:
    """A function's source text (decorators or ``def`` first) and where its lines are."""

    text: str
    file: str
    first_line: int  # the line number of the text's first line in ``file``


_SUPPLIED: weakref.WeakKeyDictionary[Any, SuppliedSource] = weakref.WeakKeyDictionary()


def supply(fn: Any, source: SuppliedSource) -> None:
    """Use ``source`` as the text of function ``fn`` from now on."""
    _SUPPLIED[fn] = source


def supplied(fn: Any) -> SuppliedSource | None:
    """The text supplied or recovered for ``fn``; None when its file holds it."""
    try:
        return _SUPPLIED.get(fn)
    except TypeError:  # not weak-referenceable: nothing was supplied for it
        return None


def _contains(outer: types.CodeType, inner: types.CodeType) -> bool:
    return any(
        c is inner or (isinstance(c, types.CodeType) and _contains(c, inner))
        for c in outer.co_consts
    )


def _exec_frame(code: types.CodeType, frame: types.FrameType | None) -> types.FrameType | None:
    """The outermost frame of the exec'd code that defines ``code`` (below ``frame``)."""
    found = None
    for _ in range(_MAX_FRAMES):
        if frame is None:
            break
        if found is None and _contains(frame.f_code, code):
            found = frame
        elif found is not None and frame.f_code.co_filename == code.co_filename:
            found = frame  # an enclosing function of the same exec'd text
        elif found is not None:
            break
        frame = frame.f_back
    return found


def _matching_text(top: types.CodeType, candidates: list[str]) -> str | None:
    flags = top.co_flags & _FUTURE_FLAGS
    for text in candidates:
        try:
            compiled = compile(text, top.co_filename, "exec", flags=flags, dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        if compiled == top:
            return text
    return None


def recover_exec_source(fn: Any) -> SuppliedSource | None:
    """Find and remember the text of ``fn`` defined by ``exec(string)`` further up the stack
    (call while that exec runs: from the decorator). None when the text cannot be proven."""
    code = getattr(fn, "__code__", None)
    if code is None or linecache.getlines(code.co_filename, getattr(fn, "__globals__", None)):
        return None
    frame = _exec_frame(code, sys._getframe(1))
    if frame is None or frame.f_back is None or frame.f_code.co_name != "<module>":
        return None
    candidates = [
        v for v in frame.f_back.f_locals.values() if isinstance(v, str) and len(v) < _MAX_TEXT
    ]
    text = _matching_text(frame.f_code, candidates)
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    block = inspect.getblock(lines[code.co_firstlineno - 1 :])
    source = SuppliedSource("".join(block), code.co_filename, code.co_firstlineno)
    supply(fn, source)
    return source


def source_lines(fn: Any) -> tuple[list[str], int, str]:
    """``fn``'s source lines (decorators or ``def`` first), the line number of the first one
    and the file they are in: text supplied for ``fn`` (source_text.py), else its file or
    whatever ``linecache`` holds for it (IPython cells, generated code that registered there)."""
    given = supplied(fn)
    if given is not None:
        return given.text.splitlines(keepends=True), given.first_line, given.file
    try:
        lines, start = inspect.getsourcelines(fn)
        return lines, start, inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise UnsupportedFeature(
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r} ({e}): define the "
            "kernel in a file, register generated text in linecache, or pass the text with "
            "JITFunction._unsafe_update_src"
        ) from None


def def_text(fn: Any) -> str:
    """Triton's ``JITFunction.src``: the dedented source from the ``def`` line on (decorators
    stripped); text supplied with ``_unsafe_update_src`` exactly as given."""
    lines, _, _ = source_lines(fn)
    text = textwrap.dedent("".join(lines))
    match = re.search(r"^(async\s+)?def\s+\w+\s*\(", text, re.MULTILINE)
    return text[match.start() :] if match else text


def _parameter_names(node: ast.FunctionDef) -> list[str]:
    a = node.args
    names = [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]
    return names + [p.arg for p in (a.vararg, a.kwarg) if p is not None]


def with_text(fn: Any, text: str) -> Any:
    """A copy of function ``fn`` whose source is ``text`` (one ``def`` with ``fn``'s
    parameters): compiled to its own code object, so the globals it reads are its own, with
    ``fn``'s globals, closure cells, defaults and annotations."""
    where = f"<updated source of {fn.__qualname__}>"
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError as e:
        raise UsageError(f"_unsafe_update_src: the new source of {fn.__name__} is not "
                         f"valid Python: {e}") from None  # fmt: skip
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(tree.body) != 1 or len(defs) != 1:
        raise UsageError("_unsafe_update_src: the new source must be exactly one 'def'")
    old = _parameter_names(ast.parse(def_text(fn)).body[0])  # type: ignore[arg-type]
    if _parameter_names(defs[0]) != old:
        raise UsageError(
            f"_unsafe_update_src: the new source of {fn.__name__} must keep its parameters "
            f"({', '.join(old)})"
        )
    code = _compile_closed_over(defs[0], fn.__code__.co_freevars, where)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    new = types.FunctionType(
        code, fn.__globals__, fn.__name__, fn.__defaults__,
        tuple(cells[n] for n in code.co_freevars),
    )  # fmt: skip
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = dict(fn.__annotations__)
    new.__qualname__, new.__module__ = fn.__qualname__, fn.__module__
    supply(new, SuppliedSource(textwrap.dedent(text), where, 1))
    return new


def _compile_closed_over(node: ast.FunctionDef, freevars: tuple[str, ...], where: str) -> Any:
    """The code object of ``node``, compiled inside a function whose locals are ``freevars``
    so that the names the original function closed over stay closure variables."""
    node.decorator_list = []
    module = ast.parse(f"def _outer({', '.join(freevars)}):\n    pass\n")
    outer = module.body[0]
    assert isinstance(outer, ast.FunctionDef)
    outer.body = [node]
    compiled = compile(ast.fix_missing_locations(module), where, "exec", dont_inherit=True)
    outer_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    return next(c for c in outer_code.co_consts if isinstance(c, types.CodeType))
