"""The attributes a kernel reads off the user's modules and classes: ``consts.BLOCK``,
``Cfg.SCALE``, ``pkg.sub.EPS``, ``helpers.fn(...)``.

A kernel's code names a global or closure variable and then loads attributes of it; the
bytecode shows each such chain as a ``LOAD_GLOBAL`` (or ``LOAD_DEREF``) followed by
``LOAD_ATTR``/``LOAD_METHOD`` instructions. The fingerprint resolves every chain that starts at
a module or class of the user's (tilec's own and Python's builtins aside) and treats what it
finds like a global: the value enters the cache key, and the namespace entry it came from is
watched before each launch (global_guard.py), so that ``Cfg.SCALE = 3.0`` after a launch
raises instead of running the kernel compiled with the old value.
"""

from __future__ import annotations

import dis
import types
from collections.abc import Iterator, Mapping
from typing import Any

_ROOTS = frozenset({"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_CLASSDEREF"})
_ATTRIBUTES = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_OWN_PACKAGES = frozenset({"tilec", "triton", "builtins"})


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and the code of the functions and comprehensions nested in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def chains(code: types.CodeType) -> set[tuple[str, ...]]:
    """Every ``name.attr[.attr...]`` the code loads, as (name, attr, ...) tuples."""
    found: set[tuple[str, ...]] = set()
    for c in code_objects(code):
        current: tuple[str, ...] | None = None
        for ins in dis.get_instructions(c):
            if ins.opname in _ROOTS:
                current = (str(ins.argval),)
            elif ins.opname in _ATTRIBUTES and current is not None:
                current = (*current, str(ins.argval))
                found.add(current)
            else:
                current = None
    return found


def is_namespace(value: Any) -> bool:
    """A module or class whose attributes are the user's to assign."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
    elif isinstance(value, type):
        name = value.__module__
    else:
        return False
    return name.partition(".")[0] not in _OWN_PACKAGES


def defining_scope(namespace: Any, attr: str) -> Mapping[str, Any] | None:
    """The dict that holds ``namespace.attr``: the module's globals, or the ``__dict__`` of the
    first class along the MRO that defines it; None for an attribute nothing holds (made by
    ``__getattr__``), which the fingerprint cannot watch."""
    if isinstance(namespace, types.ModuleType):
        scope = vars(namespace)
        return scope if attr in scope else None
    for klass in namespace.__mro__:
        if attr in vars(klass):
            return vars(klass)
    return None
