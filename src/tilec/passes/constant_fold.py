"""Constant folding: elementwise ops whose operands are all constants become constants.

Integers fold with the target's exact semantics (two's-complement wrap-around, C-style
truncating division and remainder); fp32/fp64 fold through numpy scalars so rounding matches
the hardware. Anything whose result could differ from run time (division by zero, oversized
shifts, fp16/bf16, NaN-producing casts) is left for the backend.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from ..ir.core import Block, Op, Value
from ..ir.ops import (
    BinaryKind,
    BinaryOp,
    BroadcastOp,
    CastOp,
    CompareKind,
    CompareOp,
    ConstantOp,
    ExpandDimsOp,
    MathOp,
    ModuleOp,
    ReshapeOp,
    Rounding,
    SelectOp,
    SplatOp,
)
from ..ir.types import Kind, ScalarType, element_of

Scalar = bool | int | float


def wrap(value: int, t: ScalarType) -> int | bool:
    """``value`` reduced to the range of integer type ``t``."""
    if t.kind is Kind.BOOL:
        return bool(value & 1)
    value &= (1 << t.bits) - 1
    if t.kind is Kind.SINT and value >= 1 << (t.bits - 1):
        value -= 1 << t.bits
    return value


def _np_float(t: ScalarType) -> Callable[[Any], Any] | None:
    import numpy as np  # lazy: loaded only when a float constant is folded

    return {"fp32": np.float32, "fp64": np.float64}.get(t.name)


def _int_to_f32(i: int) -> float:
    """``i`` rounded once to fp32 (nearest, ties to even), as sitofp/uitofp do; numpy's
    float32(i) goes through a double and rounds twice: 2**60 + 2**36 + 1 became 2**60."""
    magnitude = abs(i)
    extra = magnitude.bit_length() - 24  # bits below fp32's 24-bit significand
    if extra > 0:
        kept, rest = divmod(magnitude, 1 << extra)
        half = 1 << (extra - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        magnitude = kept << extra
    return float(-magnitude if i < 0 else magnitude)  # exact in fp32 now (int64 < fp32 max)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _c_rem(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


_INT_OPS: dict[BinaryKind, Callable[[int, int], int]] = {
    BinaryKind.ADD: operator.add,
    BinaryKind.SUB: operator.sub,
    BinaryKind.MUL: operator.mul,
    BinaryKind.AND: operator.and_,
    BinaryKind.OR: operator.or_,
    BinaryKind.XOR: operator.xor,
    BinaryKind.MIN: min,
    BinaryKind.MAX: max,
}

_CMP: dict[CompareKind, Callable[[Any, Any], bool]] = {
    CompareKind.EQ: operator.eq,
    CompareKind.NE: operator.ne,
    CompareKind.LT: operator.lt,
    CompareKind.LE: operator.le,
    CompareKind.GT: operator.gt,
    CompareKind.GE: operator.ge,
}


def fold_int_binary(kind: BinaryKind, a: int, b: int, t: ScalarType) -> int | bool | None:
    if kind in _INT_OPS:
        return wrap(_INT_OPS[kind](int(a), int(b)), t)
    if kind in (BinaryKind.DIV, BinaryKind.REM):
        if b == 0 or (t.kind is Kind.SINT and a == -(1 << (t.bits - 1)) and b == -1):
            return None
        return wrap((_c_div if kind is BinaryKind.DIV else _c_rem)(int(a), int(b)), t)
    if kind in (BinaryKind.SHL, BinaryKind.SHR):
        if not 0 <= b < t.bits:
            return None
        if kind is BinaryKind.SHL:
            return wrap(int(a) << b, t)
        return wrap(int(a) >> b, t)  # a is already signed/unsigned per t: >> is ashr / lshr
    return None


def fold_float_binary(kind: BinaryKind, a: float, b: float, t: ScalarType) -> float | None:
    conv = _np_float(t)
    if conv is None:
        return None
    x, y = conv(a), conv(b)
    ops: dict[BinaryKind, Callable[[Any, Any], Any]] = {
        BinaryKind.ADD: operator.add,
        BinaryKind.SUB: operator.sub,
        BinaryKind.MUL: operator.mul,
    }
    if kind in ops:
        return float(ops[kind](x, y))
    if kind is BinaryKind.DIV and y != 0:
        return float(x / y)
    return None


def fold_cast(value: Scalar, src: ScalarType, dst: ScalarType) -> Scalar | None:
    if dst.kind is Kind.BOOL:
        return value != 0
    if src.is_int():
        if dst.is_int():
            return wrap(int(value), dst)
        if dst.name == "fp32":
            return _int_to_f32(int(value))
        conv = _np_float(dst)  # fp64: Python rounds an int to a double correctly
        return float(conv(int(value))) if conv is not None else None
    if dst.is_int():
        f = float(value)
        if math.isnan(f) or math.isinf(f):
            return None
        i = int(f)
        return i if wrap(i, dst) == i else None
    conv = _np_float(dst)
    return float(conv(value)) if conv is not None and _np_float(src) is not None else None


def _const(v: Value) -> Scalar | None:
    op = v.defining_op
    return op.value if isinstance(op, ConstantOp) else None


def _fold(op: Op) -> Scalar | None:
    vals = [_const(v) for v in op.operands]
    if not op.operands or any(v is None for v in vals):
        return None
    elem = element_of(op.operands[0].type)
    if not isinstance(elem, ScalarType):
        return None
    if isinstance(op, BinaryOp):
        a, b = vals
        if elem.is_int():
            return fold_int_binary(op.kind, int(a), int(b), elem)  # type: ignore[arg-type]
        return fold_float_binary(op.kind, float(a), float(b), elem)  # type: ignore[arg-type]
    if isinstance(op, CompareOp):
        a, b = vals
        if elem.is_floating() and (_np_float(elem) is None):
            return None
        return _CMP[op.kind](a, b)
    if isinstance(op, CastOp):
        dst = element_of(op.results[0].type)
        if isinstance(dst, ScalarType) and op.rounding is Rounding.RTNE:
            return fold_cast(vals[0], elem, dst)  # type: ignore[arg-type]
        return None
    if isinstance(op, SelectOp):
        return vals[1] if vals[0] else vals[2]
    if isinstance(op, MathOp) and op.fn == "neg":
        # exact in every type; Python's float negation flips the sign bit, as fneg does
        return wrap(-int(vals[0]), elem) if elem.is_int() else -float(vals[0])  # type: ignore[arg-type]
    if isinstance(op, (SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp)):
        return vals[0]
    return None


def _visit(block: Block, subst: dict[Value, Value]) -> None:
    for op in list(block.ops):
        op.operands = [subst.get(v, v) for v in op.operands]
        for region in op.regions:
            for inner in region.blocks:
                _visit(inner, subst)
        if isinstance(op, ConstantOp) or len(op.results) != 1:
            continue
        value = _fold(op)
        if value is None:
            continue
        const = ConstantOp(value, op.results[0].type, op.loc)
        block.insert(block.ops.index(op), const)
        subst[op.result] = const.result
        op.erase()


def run(module: ModuleOp) -> None:
    _visit(module.body, {})
