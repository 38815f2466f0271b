"""``@library``: marks tl functions written in tl itself (softmax, sort, philox ...).

The frontend inlines them like user @jit functions (it recognises ``__tilec_jit__`` and reads
``.fn``), so the language needs no runtime; calling one from plain Python is a UsageError.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..errors import UsageError


class LibraryFunction:
    """A tl library function: inlined into kernels that call it."""

    __tilec_jit__ = True

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"tl.{self.fn.__name__} can only be called inside a @tilec.jit kernel")

    def __repr__(self) -> str:
        return f"<tl function {self.fn.__name__}>"


def library(fn: Callable[..., Any]) -> LibraryFunction:
    return LibraryFunction(fn)
