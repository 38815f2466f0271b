"""The mechanism behind ``tl`` builtins: a Python-level declaration bound to its implementation.

A builtin is a plain function ``impl(ctx, *args)`` written with Triton's parameter names; the
``Builtin`` wrapper binds keyword or positional arguments exactly as Python would, and refuses
to run outside a kernel. Builtins marked ``member`` are also tensor methods (``x.sum(axis=0)``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..errors import TileTypeError, UsageError

METHODS: dict[str, Any] = {}  # method name → Builtin or tl library function


class Builtin:
    """A ``tl`` function the frontend implements directly (``tl.load``, ``tl.arange`` ...)."""

    __tilec_builtin__ = True

    def __init__(
        self, impl: Callable[..., Any], name: str, signature: inspect.Signature | None = None
    ) -> None:
        self.impl = impl
        self.name = name
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = impl.__doc__
        if signature is None:
            params = list(inspect.signature(impl).parameters.values())[1:]
            signature = inspect.Signature(params)
        self.signature = signature

    def __repr__(self) -> str:
        return f"<tl builtin {self.name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"tl.{self.name} can only be called inside a @tilec.jit kernel")

    def invoke(self, ctx: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TileTypeError(f"{self.name}(): {e}") from None
        return self.impl(ctx, *bound.args, **bound.kwargs)


def builtin(
    name: str | None = None,
    *,
    member: bool = False,
    aliases: tuple[str, ...] = (),
    signature: inspect.Signature | None = None,
) -> Callable[[Callable[..., Any]], Builtin]:
    """Declare ``impl`` as the builtin ``name``; ``member`` also makes it a tensor method."""

    def wrap(impl: Callable[..., Any]) -> Builtin:
        b = Builtin(impl, name or impl.__name__.rstrip("_"), signature)
        if member:
            METHODS[b.name] = b
            for alias in aliases:
                METHODS[alias] = b
        return b

    return wrap


class BoundMethod:
    """``x.sum`` before it is called: a member builtin with its tensor bound first."""

    def __init__(self, fn: Any, self_value: Any) -> None:
        self.fn = fn
        self.self_value = self_value
