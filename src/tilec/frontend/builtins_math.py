"""Math builtins: where, minimum/maximum/clamp, and every named function of MathOp.

``tl.exp`` and friends, ``tl.math.*`` and ``tl.extra.libdevice.*`` all come from
``math_function``: operands are promoted to a common floating type (integers where the function
takes them, e.g. ``abs`` or ``umulhi``) and broadcast, then one MathOp is emitted.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.ops import MATH_FUNCTIONS
from ..ir.ops import BinaryKind as BK
from ..ir.types import ScalarType
from . import arith
from . import semantics as S
from .builtin import Builtin, builtin
from .values import Tensor, unwrap


@builtin(member=True)
def where(ctx: Any, condition: Any, x: Any, y: Any) -> Tensor:
    """Elementwise ``x`` where ``condition`` else ``y``."""
    c = unwrap(condition)
    kind = c.dtype if isinstance(c, Tensor) else S.python_type(c) if S.is_number(c) else None
    if kind is not None and kind != T.int1:
        # Triton warns (a future release refuses); the condition still means != 0
        warnings.warn(
            f"tl.where with a non-boolean condition ({kind.name}) is deprecated in Triton and "
            "will be an error in a future release; compare it with 0 instead",
            UserWarning,
            stacklevel=2,
        )
    return arith.where(ctx.b, condition, x, y)


@builtin(member=True)
def minimum(ctx: Any, x: Any, y: Any, propagate_nan: Any = None) -> Tensor:
    """Elementwise minimum."""
    return arith.minmax(ctx.b, False, x, y, propagate_nan)


@builtin(member=True)
def maximum(ctx: Any, x: Any, y: Any, propagate_nan: Any = None) -> Tensor:
    """Elementwise maximum."""
    return arith.minmax(ctx.b, True, x, y, propagate_nan)


@builtin(member=True)
def clamp(ctx: Any, x: Any, min: Any, max: Any, propagate_nan: Any = None) -> Tensor:
    """``x`` limited to ``[min, max]`` (floating point)."""
    return arith.clamp(ctx.b, x, min, max, propagate_nan)


@builtin(member=True)
def fdiv(ctx: Any, x: Any, y: Any, ieee_rounding: Any = False) -> Tensor:
    """Floating-point division."""
    return arith.fdiv(ctx.b, x, y)


def _float_operands(ctx: Any, name: str, args: list[Any], ints: bool, floats: bool) -> list[Tensor]:
    b = ctx.b
    vals = [unwrap(a) for a in args]
    for v in vals:
        if not isinstance(v, Tensor) and not S.is_number(v):
            raise TileTypeError(f"{name} takes tensors or numbers, got {S.describe(v)}")
    if len(vals) == 1:
        out = [S.to_tensor(b, vals[0])]
    elif len(vals) == 2:
        out = list(S.binary_operands(b, vals[0], vals[1]))
    else:
        x, y = S.binary_operands(b, vals[0], vals[1])
        x, z = S.binary_operands(b, x, vals[2])
        y, z = S.binary_operands(b, y, z)
        x, y = S.binary_operands(b, x, y)
        out = [x, y, z]
    common = out[0].dtype
    if not isinstance(common, ScalarType):
        raise TileTypeError(f"{name} does not take {common}")
    if common.is_int() and not ints:
        raise TileTypeError(f"{name} needs floating-point operands, got {common}")
    if common.is_floating() and not floats:
        raise TileTypeError(f"{name} needs integer operands, got {common}")
    return out


def apply_math(ctx: Any, fn: str, args: list[Any], fast: bool = False) -> Tensor:
    """Emit the MathOp ``fn`` on ``args`` after promotion and broadcasting."""
    spec = MATH_FUNCTIONS[fn]
    if len(args) != spec.arity:
        raise TileTypeError(f"{fn} takes {spec.arity} arguments, got {len(args)}")
    if fn == "ldexp":
        x = _float_operands(ctx, fn, args[:1], False, True)[0]
        e = S.cast(ctx.b, S.to_tensor(ctx.b, unwrap(args[1])), T.int32)
        x, e = S.broadcast_pair(ctx.b, x, e)
        return Tensor(ctx.b.math(fn, x.value, e.value))
    x = unwrap(args[0])
    if fn == "abs" and isinstance(x, Tensor) and x.dtype in T.UNSUPPORTED_TYPES:
        return _fp8_abs(ctx, x)
    ops = _float_operands(ctx, fn, args, spec.ints, spec.floats)
    return Tensor(ctx.b.math(fn, *(t.value for t in ops), fast=fast and ops[0].dtype == T.float32))


_FNUZ = frozenset({T.float8e4b8, T.float8e5b16})  # 0x80 is their NaN (no negative zero)


def _fp8_abs(ctx: Any, x: Tensor) -> Tensor:
    """``abs`` of fp8 values on their bits: the sign bit cleared, as Triton does; the NaN of
    the fnuz formats (0x80) stays NaN."""
    bits = S.bitcast(ctx.b, x, T.uint8)
    cleared = arith.bitwise(ctx.b, BK.AND, bits, 0x7F)
    if x.dtype in _FNUZ:
        cleared = arith.where(ctx.b, arith.compare(ctx.b, "eq", bits, 0x80), bits, cleared)
    return S.bitcast(ctx.b, cleared, x.dtype)


def math_function(
    fn: str, name: str | None = None, member: bool = False, fast: bool = False
) -> Builtin:
    """A builtin calling the MathOp ``fn``; parameters are named x, y, z like Triton's."""
    arity = MATH_FUNCTIONS[fn].arity
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    sig = inspect.Signature([inspect.Parameter(p, kind) for p in ("x", "y", "z")[:arity]])

    def impl(ctx: Any, *args: Any) -> Tensor:
        return apply_math(ctx, fn, list(args), fast)

    impl.__doc__ = f"Elementwise {fn}."
    return builtin(name or fn, member=member, signature=sig)(impl)


# Triton's core math (also tensor methods); like Triton's, exp/log/sqrt on fp32 may use the
# hardware approximations (MathOp.fast), while sqrt_rn, div_rn and libdevice are exact
exp = math_function("exp", member=True, fast=True)
exp2 = math_function("exp2", member=True, fast=True)
log = math_function("log", member=True, fast=True)
log2 = math_function("log2", member=True, fast=True)
cos = math_function("cos", member=True)
sin = math_function("sin", member=True)
sqrt = math_function("sqrt", member=True, fast=True)
sqrt_rn = math_function("sqrt_rn", member=True)
rsqrt = math_function("rsqrt", member=True, fast=True)
erf = math_function("erf", member=True)
floor = math_function("floor", member=True)
ceil = math_function("ceil", member=True)
abs_ = math_function("abs", member=True)
div_rn = math_function("div_rn", member=True)
fma = math_function("fma", member=True)
umulhi = math_function("umulhi", member=True)
