"""A kernel's launch parameters (Triton's ``KernelParam``): read once from the Python signature.

Each parameter records whether it is a constexpr, listed in ``do_not_specialize``, ``*args``,
or typed by an annotation; the launch function and the native dispatcher bind arguments to
them, ``MISSING`` standing for one a launch did not pass.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..constexpr import is_constexpr_annotation
from ..errors import CompileError, UsageError
from ..ir.types import ScalarType
from .annotations import annotated_scalar


@dataclass(frozen=True)
class Parameter:
    """One kernel parameter (Triton's ``KernelParam``)."""

    name: str
    constexpr: bool
    do_not_specialize: bool
    default: Any = inspect.Parameter.empty
    num: int = -1  # position among the kernel's parameters (Triton's KernelParam.num)
    var_positional: bool = False  # ``*args``: the extra positional arguments, as one tuple
    # the scalar type an annotation fixes (``v: tl.float16``; annotations.py), else None
    annotated: ScalarType | None = None

    @property
    def is_constexpr(self) -> bool:
        return self.constexpr


class _Missing:
    """The default of a parameter a launch did not pass. Describing it fails (no describer
    takes it; unhashable, so not a constexpr either), so a missing argument costs the warm
    path nothing and becomes a UsageError naming it rather than Python's TypeError."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<missing>"


MISSING = _Missing()
# the parameters a launch binds one argument each (``*args`` takes the rest as a tuple)
_PLAIN = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY)


def defaults(params: Sequence[Parameter]) -> tuple[Any, ...]:
    """Each parameter's default, MISSING where it has none."""
    return tuple(MISSING if p.default is inspect.Parameter.empty else p.default for p in params)


def check_specializable(params: Sequence[Parameter]) -> None:
    """Triton's rule, checked when a kernel compiles: a tl.constexpr parameter is specialized
    on its value, so it cannot also be listed in do_not_specialize."""
    for p in params:
        if p.constexpr and p.do_not_specialize:
            raise CompileError(
                f"{p.name} marked as constexpr and listed in do_not_specialize: a compile-time "
                "parameter is always specialized on its value"
            )


def parameters_of(
    fn: Callable[..., Any], do_not_specialize: Sequence[str | int] = ()
) -> tuple[Parameter, ...]:
    """The kernel's parameters with their constexpr and do_not_specialize flags."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise UsageError(f"tilec.jit needs a Python function, got {fn!r}") from None
    if not inspect.isfunction(fn):
        raise UsageError(f"tilec.jit needs a Python function, got {type(fn).__name__} {fn!r}")
    names = list(sig.parameters)
    nospec = {names[d] if isinstance(d, int) else d for d in do_not_specialize}
    unknown = nospec - set(names)
    if unknown:
        raise UsageError(f"do_not_specialize names unknown parameters: {sorted(unknown)}")
    result: list[Parameter] = []
    for p in sig.parameters.values():
        if p.kind not in (*_PLAIN, p.VAR_POSITIONAL):
            continue  # only @jit helpers may have them (launch_refusal)
        cx = is_constexpr_annotation(p.annotation)
        star = p.kind is p.VAR_POSITIONAL  # a launch passes them as one tuple argument
        nospec_p = p.name in nospec  # with constexpr too: refused when it compiles
        fixed = None if cx or star else annotated_scalar(p.annotation)
        result.append(Parameter(p.name, cx, nospec_p, p.default, len(result), star, fixed))
    return tuple(result)


def launch_refusal(fn: Callable[..., Any]) -> str | None:
    """Why ``fn`` can be called from kernels but not launched (None when it can be): a launch
    binds plain parameters only, while an inlined @jit helper binds any Python signature."""
    params = inspect.signature(fn).parameters.values()
    odd = [p for p in params if p.kind not in (*_PLAIN, p.VAR_POSITIONAL)]
    if not odd:
        return None
    return (
        f"launching kernel {fn.__name__} with **kwargs or keyword-only parameters "
        f"({', '.join(repr(p.name) for p in odd)}); call it from another kernel, or give "
        "the kernel plain parameters"
    )
