"""Compile-time checks and prints, run-time prints and asserts, and compiler hints."""

from __future__ import annotations

import sys
from typing import Any

from ..errors import CompileError, CompileTimeAssertionFailure, ConstexprError, TileTypeError
from . import arith
from . import semantics as S
from .builtin import builtin
from .values import Tensor, leaves, unwrap


@builtin()
def static_assert(ctx: Any, cond: Any, msg: Any = "") -> None:
    """Fail compilation when the compile-time ``cond`` is false."""
    cond = unwrap(cond)
    if leaves(cond):
        raise ConstexprError(
            "static_assert needs a compile-time condition; use tl.device_assert for run-time values"
        )
    if not cond:
        text = unwrap(msg)
        raise CompileTimeAssertionFailure(f"static_assert failed{': ' + str(text) if text else ''}")


def _static_text(v: Any) -> str:
    """A value as static_print shows it; a tensor as Triton shows one, its element type and
    its shape's compile-time sizes (``int32[constexpr[128]]``)."""
    if not isinstance(v, Tensor):
        return str(v)
    dims = ", ".join(f"constexpr[{d}]" for d in v.shape)
    return f"{getattr(v.dtype, 'name', v.dtype)}[{dims}]"


@builtin()
def static_print(
    ctx: Any, *values: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: Any = False
) -> None:
    """Print while compiling (tensors print as their type)."""
    text = [_static_text(unwrap(v)) for v in values]
    print(
        *text,
        sep=unwrap(sep),
        end=unwrap(end),
        file=unwrap(file) or sys.stdout,
        flush=bool(unwrap(flush)),
    )


def print_prefix(prefix: str, has_values: bool) -> str:
    """The prefix as Triton prints it: ending in ": " before values, and a prefix longer than
    two characters starting with a space (``"x"`` -> ``" x: "``, ``""`` -> ``": "``)."""
    if has_values and not prefix.endswith(" "):
        prefix += " "
    if has_values and not prefix.endswith(": "):
        prefix = prefix[:-1] + ": "
    if len(prefix) > 2 and not prefix.startswith(" "):
        prefix = " " + prefix
    return prefix


def _print(ctx: Any, prefix: str, args: tuple[Any, ...], hex: bool) -> None:
    prefix = print_prefix(prefix, bool(args))
    values = []
    for a in args:
        a = unwrap(a)
        if not isinstance(a, Tensor):
            a = S.to_tensor(ctx.b, a)
        values.append(a.value)
    ctx.b.print_(prefix, values, hex)


@builtin()
def device_print(ctx: Any, prefix: Any, *args: Any, hex: Any = False) -> None:
    """Print ``prefix`` and the values from every program at run time."""
    prefix = unwrap(prefix)
    if not isinstance(prefix, str):
        raise TileTypeError(f"device_print's prefix must be a string, got {S.describe(prefix)}")
    _print(ctx, prefix, args, bool(unwrap(hex)))


@builtin("print")
def device_print_args(ctx: Any, *args: Any, sep: Any = " ", end: Any = "\n") -> None:
    """Python's print in a kernel is device_print (run-time values or not, as in Triton):
    the constants before the first run-time value make the prefix."""
    parts: list[str] = []
    values: list[Any] = []
    for a in args:
        a = unwrap(a)
        if isinstance(a, Tensor) or values:
            values.append(a)
        else:
            parts.append(str(a))
    prefix = str(unwrap(sep)).join(parts) + (" " if parts and values else "")
    _print(ctx, prefix, tuple(values), False)


@builtin()
def device_assert(ctx: Any, cond: Any, msg: Any = "", mask: Any = None) -> None:
    """Fail the launch with ``msg`` where ``cond`` is false (and ``mask``, if given, true)."""
    cond = unwrap(cond)
    if not isinstance(cond, Tensor):
        if not cond:
            raise CompileError(f"device_assert is always false: {unwrap(msg)}")
        return
    c = arith.to_bool(ctx.b, cond)
    if unwrap(mask) is not None:
        c = arith.logical(ctx.b, False, c, arith.logical_not(ctx.b, mask))
    ctx.b.assert_(c.value, str(unwrap(msg)))


def _hint_values(values: Any, rank: int, what: str) -> tuple[int, ...]:
    vals = unwrap(values)
    vals = tuple(unwrap(v) for v in vals) if isinstance(vals, (tuple, list)) else (vals,)
    for v in vals:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ConstexprError(f"{what} values must be compile-time ints, got {S.describe(v)}")
    if rank and len(vals) == 1 and rank > 1:
        vals = vals * rank
    if len(vals) != max(rank, 1):
        raise TileTypeError(f"{what} needs {max(rank, 1)} values, got {len(vals)}")
    return vals


def _hint(ctx: Any, input: Any, values: Any, key: str) -> Tensor:
    x = unwrap(input)
    if not isinstance(x, Tensor):
        raise TileTypeError(f"{key} takes a tensor, got {S.describe(x)}")
    vals = _hint_values(values, len(x.shape), key)
    return Tensor(ctx.b.hint(x.value, **{key: vals}))


@builtin()
def multiple_of(ctx: Any, input: Any, values: Any) -> Tensor:
    """Promise that the elements of ``input`` are multiples of ``values``."""
    return _hint(ctx, input, values, "multiple_of")


@builtin()
def max_contiguous(ctx: Any, input: Any, values: Any) -> Tensor:
    """Promise runs of ``values`` consecutive elements in ``input``."""
    return _hint(ctx, input, values, "max_contiguous")


@builtin()
def max_constancy(ctx: Any, input: Any, values: Any) -> Tensor:
    """Promise runs of ``values`` equal elements in ``input``."""
    return _hint(ctx, input, values, "max_constancy")


@builtin()
def assume(ctx: Any, cond: Any) -> None:
    """Let the compiler assume the scalar ``cond`` holds."""
    cond = unwrap(cond)
    if not isinstance(cond, Tensor):
        if not cond:
            raise CompileError("tl.assume of a condition that is always false")
        return
    ctx.b.assume(arith.to_bool(ctx.b, cond).value)


@builtin()
def debug_barrier(ctx: Any) -> None:
    """Synchronise a program's threads; programs run single-threaded on CPU, so a no-op."""
