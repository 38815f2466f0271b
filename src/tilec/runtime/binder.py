"""The per-kernel argument binder: Python's own call machinery binds the launch arguments.

For each kernel we generate one small function with the kernel's exact signature (defaults
included) that, in a single pass, describes every argument, builds the specialization key and
the launch values, and evaluates a callable grid. Letting CPython bind positional, keyword and
default arguments is what keeps a warm launch at a few hundred nanoseconds of Python.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from . import specialize

# bind(grid, *args, **kwargs) -> (key, values, grid, options)
Binder = Callable[..., tuple[tuple[Any, ...], tuple[Any, ...], Any, dict[str, Any]]]


@dataclass(frozen=True)
class Parameter:
    name: str
    constexpr: bool
    do_not_specialize: bool
    default: Any = inspect.Parameter.empty


def _evaluate_grid(grid: Any, meta: Mapping[str, Any]) -> Any:
    """A grid that is not a tuple: a callable of the meta-parameters, or a list."""
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, list):
        grid = tuple(grid)
    return grid


def _signature_source(params: Sequence[Parameter]) -> str:
    parts = ["_tilec_grid_"]
    for i, p in enumerate(params):
        if p.default is inspect.Parameter.empty:
            parts.append(p.name)
        else:
            parts.append(f"{p.name}=_d[{i}]")
    return ", ".join([*parts, "**_options"])


def _describe_line(i: int, p: Parameter) -> str:
    if p.constexpr:
        return (
            f"    k{i} = {p.name} if {p.name}.__class__ is int else _ck({p.name}); v{i} = {p.name}"
        )
    if p.do_not_specialize:
        return f"    k{i}, v{i} = _uns({p.name})"
    cls = f"{p.name}.__class__"
    return f"    k{i}, v{i} = (_D.get({cls}) or _r({cls}))({p.name})"


def generate_source(params: Sequence[Parameter]) -> str:
    """The Python source of the binder factory (kept separate so tests can read it)."""
    n = len(params)
    keys = "".join(f"k{i}, " for i in range(n))
    values = "".join(f"v{i}, " for i in range(n))
    meta = ", ".join(f"{p.name!r}: {p.name}" for p in params)
    lines = [
        "def _factory(_D, _r, _uns, _ck, _d, _eval):",
        f"  def bind({_signature_source(params)}):",
        *[_describe_line(i, p) for i, p in enumerate(params)],
        "    if _tilec_grid_.__class__ is not tuple:",
        f"        _tilec_grid_ = _eval(_tilec_grid_, {{{meta}{', ' if meta else ''}**_options}})",
        f"    return ({keys}), ({values}), _tilec_grid_, _options",
        "  return bind",
    ]
    return "\n".join(lines) + "\n"


def make_binder(params: Sequence[Parameter]) -> Binder:
    """Compile the binder of a kernel with these parameters."""
    for p in params:
        if not p.name.isidentifier() or keyword.iskeyword(p.name) or p.name.startswith("_tilec"):
            raise UsageError(f"kernel parameter name {p.name!r} cannot be used")
    namespace: dict[str, Any] = {}
    exec(compile(generate_source(params), "<tilec binder>", "exec"), namespace)
    defaults = tuple(p.default for p in params)
    bind: Binder = namespace["_factory"](
        specialize.DESCRIBERS,
        specialize.describer,
        specialize.describe_unspecialized,
        specialize.constexpr_key,
        defaults,
        _evaluate_grid,
    )
    return bind


def parameters_of(
    fn: Callable[..., Any], do_not_specialize: Sequence[str | int] = ()
) -> tuple[Parameter, ...]:
    """The kernel's parameters with their constexpr and do_not_specialize flags."""
    from ..language.constexpr import is_constexpr_annotation

    sig = inspect.signature(fn)
    names = list(sig.parameters)
    nospec = {names[d] if isinstance(d, int) else d for d in do_not_specialize}
    unknown = nospec - set(names)
    if unknown:
        raise UsageError(f"do_not_specialize names unknown parameters: {sorted(unknown)}")
    result = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY):
            raise UsageError(
                f"kernel {fn.__name__}: parameter {p.name!r} must be a plain parameter "
                "(no *args, **kwargs or keyword-only parameters)"
            )
        cx = is_constexpr_annotation(p.annotation)
        result.append(Parameter(p.name, cx, p.name in nospec and not cx, p.default))
    return tuple(result)
