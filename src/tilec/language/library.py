"""``@library``: marks tl functions written in tl itself (softmax, sort, philox ...).

The frontend inlines them like user @jit functions (it recognises ``__tilec_jit__`` and reads
``.fn``), so the language needs no runtime; calling one from plain Python is a UsageError.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import UsageError
from ..frontend.builtin import METHODS


class LibraryFunction:
    """A tl library function: inlined into kernels that call it."""

    __tilec_jit__ = True
    __tilec_library__ = True  # errors inside are reported at the caller's line

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"tl.{self.fn.__name__} can only be called inside a @tilec.jit kernel")

    def __repr__(self) -> str:
        return f"<tl function {self.fn.__name__}>"


def library(fn: Callable[..., Any] | None = None, *, member: bool = False) -> Any:
    """Mark ``fn`` as tl code; ``member`` also makes it a tensor method (``x.sum()``)."""

    def wrap(f: Callable[..., Any]) -> LibraryFunction:
        lib = LibraryFunction(f)
        if member:
            METHODS[f.__name__] = lib
        return lib

    return wrap(fn) if fn is not None else wrap
