"""The source fingerprint of a kernel: its code plus every @jit function and value it reads.

``scan`` walks the globals and closure variables a kernel's code reads (and those of its @jit
callees and same-file helpers, transitively), hashes their values into the fingerprint and
records them as Triton's ``used_global_vals``: two kernels with one source that close over
different values get different cache keys, and a launch can refuse a kernel whose globals
changed since it was compiled (global_guard.py). Computed once per JITFunction.
"""

from __future__ import annotations

import dis
import enum
import functools
import hashlib
import linecache
import marshal
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..source_text import supplied
from .compiler_fingerprint import COMPILER_PACKAGES
from .namespace_reads import chains, code_objects, defining_scope, is_namespace

_CONSTANT_TYPES = (int, float, bool, str, bytes, type(None))
_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
# since 3.11 the argument's low bit says whether a NULL is pushed too; the name index is above
_NAME_SHIFT = 1 if sys.version_info >= (3, 11) else 0

UsedGlobals = dict[tuple[str, int], tuple[Any, Mapping[str, Any]]]
GlobalRead = tuple[Mapping[str, Any], str, Any, str]  # scope, key, value, label


@dataclass(frozen=True)
class Dependencies:
    """What a kernel reads beyond its parameters.

    ``key``: the fingerprint (hex SHA-256). ``used_global_vals``: Triton's map ``(name,
    id(scope)) -> (value, scope)``, where scope is the reading function's ``__globals__`` or,
    for closure variables, a dict of that function's closure values. ``globals_read``: the
    entries read from a module's globals or off a user's module or class (namespace_reads.py),
    which a later assignment can change, as (scope, key, value, label: the name as the kernel
    spells it, ``Cfg.SCALE``). ``stable``:
    every value has a text that means the same in another process (else the disk cache is
    skipped for this kernel).
    """

    key: str
    used_global_vals: UsedGlobals
    globals_read: tuple[GlobalRead, ...]
    stable: bool


def _global_names(code: types.CodeType) -> set[str]:
    """The names ``code`` (and the code nested in it) loads from its globals, read from the
    raw bytecode (dis.get_instructions costs ~1 ms per kernel)."""
    names = set()
    for c in code_objects(code):
        raw, extended = c.co_code, 0
        for i in range(0, len(raw), 2):
            op, arg = raw[i], raw[i + 1] | extended
            extended = arg << 8 if op == dis.EXTENDED_ARG else 0
            if op == _LOAD_GLOBAL:
                names.add(c.co_names[arg >> _NAME_SHIFT])
    return names


def _last_line(code: types.CodeType) -> int:
    """The last source line with code in ``code`` or the functions nested in it."""
    return max(
        (line for c in code_objects(code) for _, _, line in c.co_lines() if line is not None),
        default=0,
    )


def _source(fn: Callable[..., Any]) -> str:
    """The lines of ``fn``'s definition, decorators to its last line of code, from linecache:
    inspect.getsource would tokenize the block (~5 ms of a warm-cache first call)."""
    given = supplied(fn)  # text from exec or _unsafe_update_src is what compiles
    if given is not None:
        return given.text
    code = fn.__code__
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    text = "".join(lines[code.co_firstlineno - 1 : _last_line(code)])
    # defined in exec'd code or a REPL: fall back to the bytecode
    return text or marshal.dumps(code).hex()


def _is_jit(obj: Any) -> bool:
    return bool(getattr(obj, "__tilec_jit__", False))


def _in_tilec(fn: Any) -> bool:
    """A function of tilec's compiler packages (tl.sum...) whose meaning its name and the
    compiler fingerprint fix: no closure, and its source hashed with the compiler's."""
    parts = str(getattr(fn, "__module__", "")).split(".")
    return (
        parts[0] == "tilec"
        and len(parts) > 1
        and parts[1] in COMPILER_PACKAGES
        and not getattr(fn, "__closure__", None)
    )


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"


class _Walk:
    """One fingerprint computation: the hash, the functions still to visit, what was read."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.hash = hashlib.sha256()
        self.pending: list[Any] = [fn]
        self.seen: set[int] = set()
        self.used: UsedGlobals = {}
        self.globals_read: list[GlobalRead] = []
        self.stable = True

    def run(self) -> Dependencies:
        while self.pending:
            f = self.pending.pop()
            f = getattr(f, "fn", f) if _is_jit(f) else f
            if id(f) in self.seen or not hasattr(f, "__code__"):
                continue
            self.seen.add(id(f))
            if _in_tilec(f):
                # tl's own functions (tl.sum...): the compiler fingerprint hashes their source
                # and their module constants are tilec's, never the user's to change
                self.hash.update(f"tilec {_qualified(f)}\n".encode())
                continue
            self.hash.update(f"{f.__qualname__}\n{_source(f)}\n".encode())
            self._defaults(f)
            self._visit(f)
        used = dict(sorted(self.used.items(), key=lambda item: item[0]))
        return Dependencies(self.hash.hexdigest(), used, tuple(self.globals_read), self.stable)

    def _defaults(self, f: Any) -> None:
        """The values of ``f``'s parameter defaults: evaluated where ``f`` was defined
        (``def helper(x, s=SCALE)``), so the source text alone does not fix them."""
        defaults = tuple(getattr(f, "__defaults__", None) or ())
        keywords = tuple(sorted((getattr(f, "__kwdefaults__", None) or {}).items()))
        if defaults or keywords:
            text = f"{self._text(defaults, f)} {self._text(keywords, f)}"
            self.hash.update(f"defaults {text}\n".encode())

    def _visit(self, f: Any) -> None:
        code = f.__code__
        closure: dict[str, Any] = {}
        for name, cell in zip(code.co_freevars, f.__closure__ or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # a closure variable not assigned yet
                continue
        glob = getattr(f, "__globals__", {})
        for name in sorted(closure):
            self._read(f, name, closure[name], closure)
        readable = dict(closure)
        for name in sorted(_global_names(code)):
            if name in glob:
                self._read(f, name, glob[name], glob)
                readable.setdefault(name, glob[name])
        roots = {name: value for name, value in readable.items() if is_namespace(value)}
        if roots:
            for chain in sorted(chains(code)):
                if chain[0] in roots:
                    self._read_chain(f, chain, roots[chain[0]])

    def _read_chain(self, f: Any, chain: tuple[str, ...], value: Any) -> None:
        """Hash and watch what ``mod.sub.X`` / ``Cls.X`` reads, entry by entry; a @jit
        function found this way (``helpers.fn(...)``) is walked like a global one."""
        label = chain[0]
        for attr in chain[1:]:
            scope = defining_scope(value, attr) if is_namespace(value) else None
            if scope is None:
                return  # not the user's namespace, or an attribute no dict holds
            label, owner, value = f"{label}.{attr}", value, scope[attr]
            self.globals_read.append((scope, attr, value, label))
            if _is_jit(value):
                self.hash.update(f"jit {label}\n".encode())
                self.pending.append(value)
                return
            if not is_namespace(value):
                text = self._text(getattr(owner, attr), f)  # a staticmethod as its function
                self.hash.update(f"{label}={text}\n".encode())
                return
            self.hash.update(f"{label}=namespace:{_qualified(value)}\n".encode())

    def _read(self, f: Any, name: str, value: Any, scope: dict[str, Any]) -> None:
        """Hash and record one value ``f`` reads as ``name`` from ``scope``."""
        if isinstance(value, types.ModuleType):
            return  # modules are never rebound in practice; their @jit attributes are walked
        if _is_jit(value):
            self.hash.update(f"jit {name}\n".encode())
            self.pending.append(value)  # its own reads count as ours
            return
        self.hash.update(f"{name}={self._text(value, f)}\n".encode())
        if getattr(value, "__tilec_builtin__", False):
            return  # tl functions, like Triton's builtins, are not watched
        self.used[(name, id(scope))] = (value, scope)
        if scope is getattr(f, "__globals__", None):
            self.globals_read.append((scope, name, value, name))

    def _text(self, value: Any, reader: Any) -> str:
        """A stable text for ``value``; plain functions from the reader's file and @jit
        functions inside tuples are queued for walking too."""
        if type(value).__name__ == "constexpr" and hasattr(value, "value"):
            return f"constexpr({self._text(value.value, reader)})"
        if isinstance(value, _CONSTANT_TYPES):
            return f"{type(value).__name__}:{value!r}"
        if type(value).__name__ in ("ScalarType", "PointerType"):
            return f"dtype:{value}"
        if isinstance(value, enum.Enum):
            return f"enum:{_qualified(type(value))}.{value.name}"
        if isinstance(value, tuple):
            items = ",".join(self._text(v, reader) for v in value)
            return f"{_qualified(type(value))}({items})"
        if _is_jit(value):
            self.pending.append(value)
            return f"jit:{_qualified(value.fn)}"
        if isinstance(value, types.FunctionType):
            if value.__module__ == getattr(reader, "__module__", None):
                # a plain helper from the kernel's own file may run at compile time on
                # constexprs (block sizes...), so its source and reads count instead
                self.pending.append(value)
                return f"helper:{value.__qualname__}"
            # another module's function that runs at compile time: its text fixes what it
            # computes (an edit to it must not load a kernel compiled with the old one)
            digest = hashlib.sha256(_source(value).encode()).hexdigest()[:16]
            return f"function:{_qualified(value)}:{digest}"
        if isinstance(value, functools.partial):
            args = self._text(value.args, reader)
            keywords = self._text(tuple(sorted(value.keywords.items())), reader)
            return f"partial:{self._text(value.func, reader)}{args}{keywords}"
        if isinstance(value, (type, types.BuiltinFunctionType)) or getattr(
            value, "__tilec_builtin__", False
        ):
            return f"{type(value).__name__}:{_qualified(value)}"
        # an object whose meaning cannot be written down: this process's kernel table still
        # tells it apart (by identity), the disk cache must not
        self.stable = False
        return f"object:{_qualified(type(value))}"


def scan(fn: Callable[..., Any]) -> Dependencies:
    """The fingerprint and the globals read by ``fn`` (a Python function or a @jit kernel)."""
    return _Walk(fn).run()


def fingerprint(fn: Callable[..., Any]) -> str:
    """SHA-256 (hex) over ``fn``'s source and its dependencies, recursively."""
    return scan(fn).key
