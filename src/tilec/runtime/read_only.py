"""Read-only arrays passed where a kernel writes: refused before the launch, naming the argument.

A read-only numpy array (a memory map opened read-only, ``np.frombuffer`` of bytes) written
through by a store or an atomic would crash the process or corrupt an immutable object. The
written parameters come from the compiled kernel (written_params.py); an array inside a tuple
argument is named by its path, ``x[1][0]`` or a descriptor's ``x[0].base``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError


def read_only_error(name: str) -> UsageError:
    return UsageError(
        f"argument {name!r} is a read-only array, but the kernel writes through it "
        "(stores or atomics); pass a writable copy"
    )


def is_read_only(value: Any) -> bool:
    """True for a numpy array (or an ``__array_interface__`` object) that may not be written."""
    flags = getattr(value, "flags", None)
    if flags is not None and getattr(flags, "writeable", True) is False:
        return True
    iface = getattr(value, "__array_interface__", None)
    data = iface.get("data") if isinstance(iface, dict) else None
    return isinstance(data, tuple) and len(data) == 2 and data[1] is True


_STEP = re.compile(r"\[(\d+)\]|\.(\w+)")


def split_leaf(name: str) -> tuple[str, tuple[int | str, ...]]:
    """A written parameter's name as its parameter and the steps into it: ``"x"`` is
    ``("x", ())``, a tuple argument's leaf ``"x[1][0]"`` is ``("x", (1, 0))``, a descriptor's
    base array ``"x[0].base"`` is ``("x", (0, "base"))``."""
    top = re.match(r"\w*", name)
    head = top.group(0) if top else ""
    steps = tuple(
        int(m.group(1)) if m.group(1) is not None else m.group(2)
        for m in _STEP.finditer(name, len(head))
    )
    return head, steps


def _render(name: str, path: Sequence[int | str]) -> str:
    return name + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path)


def read_only_leaf(value: Any, paths: Sequence[tuple[int | str, ...]], name: str) -> None:
    """Refuse a read-only array at one of ``paths`` inside the argument ``value`` (paths a
    specialization with another structure wrote are skipped)."""
    for path in paths:
        leaf = value
        try:
            for step in path:
                leaf = getattr(leaf, step) if isinstance(step, str) else leaf[step]
        except (IndexError, KeyError, TypeError, AttributeError):
            continue
        if is_read_only(leaf):
            raise read_only_error(_render(name, path))
