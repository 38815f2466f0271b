"""Refusing a launch after a global that the kernel read has changed (as Triton does).

A kernel reads its globals once, when its fingerprint is computed (fingerprint.scan), and
compiles their values in. Every later launch checks that the module globals among them are
still those objects: the native dispatcher compares identities in C against ``watch``; only
a mismatch comes to ``check``, which compares by value, adopts an equal new object (so the next
launch is fast again) or raises GlobalChangedError. Closure values cannot be rebound from
outside the function that made the kernel, so only module globals are watched, with the
entries of the user's modules and classes that the kernel read attributes of
(namespace_reads.py: ``Cfg.SCALE``); a class's ``__dict__`` is no plain dict, so a kernel that
reads class attributes launches through the Python check.
"""

from __future__ import annotations

from typing import Any

from ..errors import GlobalChangedError
from .fingerprint import Dependencies

_ABSENT = object()


def same_value(old: Any, new: Any) -> bool:
    """Whether a kernel compiled with ``old`` is right for ``new``: the same object, or equal
    and of the same type (``1``, ``1.0`` and ``True`` compile differently)."""
    if old is new:
        return True
    if type(old) is not type(new):
        return False
    try:
        return bool(old == new)
    except Exception:  # an object whose comparison fails or is ambiguous: treat as changed
        return False


class GlobalGuard:
    """The module globals one kernel read, checked before each launch."""

    __slots__ = ("compiled_with", "kernel", "watch")

    def __init__(self, kernel: str, deps: Dependencies) -> None:
        self.kernel = kernel
        self.compiled_with = deps.globals_read
        # flat (globals dict, name, object last seen) triples: the native dispatcher reads it
        self.watch: list[Any] = [item for entry in deps.globals_read for item in entry[:3]]

    def check(self) -> None:
        """Raise GlobalChangedError when a global differs from the value compiled in."""
        watch = self.watch
        for i, (scope, name, original, label) in enumerate(self.compiled_with):
            current = scope.get(name, _ABSENT)
            if current is watch[3 * i + 2]:
                continue
            if current is _ABSENT or not same_value(original, current):
                new = "<deleted>" if current is _ABSENT else current
                raise GlobalChangedError(
                    f"Global variable {label} has changed since we compiled this kernel, from "
                    f"{original} to {new} (kernel {self.kernel}: a kernel reads its globals "
                    "once, at its first compilation; apply @jit to the function again to "
                    "compile it with the new value)"
                )
            watch[3 * i + 2] = current
