"""Lowering rules for values computed element by element: creation ops, arithmetic, math,
selects, casts, pointer arithmetic, splat/broadcast/expand_dims and hints.

Every tile result takes its planned layout; operands are converted to it when they differ.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import PointerType, ScalarType, TileType, element_of, float32
from ...llvm import intrinsics as llvm_intr
from .. import range_compare, scalar_ops
from ..layout import expand
from ..lowering import Lowering, Rule, Tile
from ..types import I32, memory_type


def elementwise(L: Lowering, op: Op, fn: Callable[[list[ir.Value]], ir.Value]) -> None:
    """Apply ``fn`` to corresponding registers of every operand (scalars broadcast)."""
    result = op.results[0]
    if not isinstance(result.type, TileType):
        L.set(result, fn([L.scalar(v) for v in op.operands]))
        return
    layout = L.want(result)
    ins = [L.value(v, layout) for v in op.operands]
    regs = {}
    for key in L.keys(layout, result.type.shape):
        regs[key] = fn([x.regs[key] if isinstance(x, Tile) else x for x in ins])
    L.set(result, Tile(layout, result.type.shape, regs))


def _scalar_elem(op: Op, index: int = 0) -> ScalarType:
    elem = element_of(op.operands[index].type)
    assert isinstance(elem, ScalarType)
    return elem


def _binary(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.BinaryOp)
    elem = _scalar_elem(op)
    if op.kind is O.BinaryKind.DIV and elem == float32 and not op.fast and _divide(L, op):
        return
    elementwise(
        L,
        op,
        lambda a: scalar_ops.binary(
            L.b, L.target, op.kind, a[0], a[1], elem, op.propagate_nan, op.fast
        ),
    )


def _divide(L: Lowering, op: Op) -> bool:
    """fp32 division of a tile with many registers per thread, in groups where the target
    has them (fdiv.py on NVPTX); False leaves smaller tiles and scalars to ``fdiv`` one by one."""
    result = op.results[0]
    if not isinstance(result.type, TileType):
        return False
    layout = L.want(result)
    keys = L.keys(layout, result.type.shape)
    group = L.target.f32_divide_group
    if not group or len(keys) < group:
        return False
    x, y = (L.value(v, layout) for v in op.operands)
    pairs = [tuple(v.regs[k] if isinstance(v, Tile) else v for v in (x, y)) for k in keys]
    L.set(result, Tile(layout, result.type.shape, dict(zip(keys, L.target.divide_f32(L.b, pairs)))))
    return True


def _compare(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.CompareOp)
    if range_compare.lower(L, op):
        return
    elem = element_of(op.operands[0].type)
    elementwise(L, op, lambda a: scalar_ops.compare(L.b, op.kind, a[0], a[1], elem))


def _math(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.MathOp)
    elem = _scalar_elem(op)
    elementwise(L, op, lambda a: L.target.math(L.b, op.fn, a, elem, op.fast))


def _select(L: Lowering, op: Op) -> None:
    elementwise(L, op, lambda a: L.b.select(a[0], a[1], a[2]))


def _cast(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.CastOp)
    src, dst = element_of(op.operands[0].type), element_of(op.result.type)
    if _narrow_in_pairs(L, op):
        return
    elementwise(L, op, lambda a: scalar_ops.cast(L.b, a[0], src, dst, op.rounding))


def _narrow_in_pairs(L: Lowering, op: O.CastOp) -> bool:
    """fp32 -> fp16/bf16 two registers at a time where the target converts pairs (cvt.rn's
    f16x2/bf16x2 forms on NVPTX, sm_80+), as Triton converts."""
    src, dst = element_of(op.operands[0].type), element_of(op.result.type)
    result = op.result
    if src != float32 or not isinstance(dst, ScalarType) or not L.target.narrows_in_pairs(dst):
        return False
    if op.rounding is not O.Rounding.RTNE or not isinstance(result.type, TileType):
        return False
    layout = L.want(result)
    x = L.value(op.operands[0], layout)
    keys = L.keys(layout, result.type.shape)
    if not isinstance(x, Tile) or len(keys) < 2:
        return False
    b, regs = L.b, {}
    for lo, hi in zip(keys[0::2], keys[1::2]):  # any two registers: each keeps its own value
        regs[lo], regs[hi] = L.target.narrow_pair(b, x.regs[lo], x.regs[hi], dst)
    if len(keys) % 2:
        regs[keys[-1]] = scalar_ops.cast(b, x.regs[keys[-1]], src, dst, op.rounding)
    L.set(result, Tile(layout, result.type.shape, regs))
    return True


def _bitcast(L: Lowering, op: Op) -> None:
    dst = element_of(op.result.type)
    elementwise(L, op, lambda a: scalar_ops.bitcast(L.b, L.target, a[0], dst))


def _addptr(L: Lowering, op: Op) -> None:
    elem = element_of(op.operands[0].type)
    assert isinstance(elem, PointerType)
    pointee = memory_type(elem.element)
    elementwise(L, op, lambda a: L.b.gep(a[0], [a[1]], source_etype=pointee))


def _hint(L: Lowering, op: Op) -> None:
    elementwise(L, op, lambda a: a[0])


def _constant(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ConstantOp)
    c = scalar_ops.constant(op.value, element_of(op.result.type))
    if isinstance(op.result.type, TileType):
        layout = L.want(op.result)
        shape = op.result.type.shape
        L.set(op.result, Tile(layout, shape, dict.fromkeys(L.keys(layout, shape), c)))
    else:
        L.set(op.result, c)


def _make_range(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.MakeRangeOp)
    layout = L.want(op.result)
    shape = (op.end - op.start,)
    regs = {}
    for key in L.keys(layout, shape):
        (c,) = L.coord(layout, shape, key)
        regs[key] = L.b.add(c, ir.Constant(I32, op.start)) if op.start else c
    L.set(op.result, Tile(layout, shape, regs))


def _program_id(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ProgramIdOp)
    if isinstance(op, O.NumProgramsOp):
        L.set(op.result, L.target.num_programs(L.prologue, op.axis))
    else:
        L.set(op.result, L.target.program_id(L.prologue, op.axis))


def _splat(L: Lowering, op: Op) -> None:
    assert isinstance(op.result.type, TileType)
    layout = L.want(op.result)
    shape = op.result.type.shape
    x = L.scalar(op.operands[0])
    L.set(op.result, Tile(layout, shape, dict.fromkeys(L.keys(layout, shape), x)))


def _broadcast(L: Lowering, op: Op) -> None:
    assert isinstance(op.result.type, TileType)
    layout = L.want(op.result)
    shape = op.result.type.shape
    src = L.tile(op.operands[0], layout)
    regs = {}
    for key in L.keys(layout, shape):
        skey = tuple(0 if s == 1 and d != 1 else i for i, s, d in zip(key, src.shape, shape))
        regs[key] = src.regs[skey]
    L.set(op.result, Tile(layout, shape, regs))


def _expand_dims(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ExpandDimsOp) and isinstance(op.result.type, TileType)
    got = L.env[op.operands[0]]
    if not isinstance(got, Tile):  # a scalar becomes a one-element tile
        layout = L.want(op.result)
        keys = L.keys(layout, op.result.type.shape)
        L.set(op.result, Tile(layout, op.result.type.shape, dict.fromkeys(keys, got)))
        return
    layout = expand(got.layout, op.axis)
    regs = {(*k[: op.axis], 0, *k[op.axis :]): v for k, v in got.regs.items()}
    L.set(op.result, Tile(layout, op.result.type.shape, regs))


def _assume(L: Lowering, op: Op) -> None:
    cond = L.env[op.operands[0]]
    if not isinstance(cond, Tile):
        L.b.call(
            llvm_intr.declare(L.b.module, "llvm.assume", ir.VoidType(), [ir.IntType(1)]), [cond]
        )


RULES: dict[type, Rule] = {
    O.BinaryOp: _binary,
    O.CompareOp: _compare,
    O.MathOp: _math,
    O.SelectOp: _select,
    O.CastOp: _cast,
    O.BitcastOp: _bitcast,
    O.AddPtrOp: _addptr,
    O.HintOp: _hint,
    O.ConstantOp: _constant,
    O.MakeRangeOp: _make_range,
    O.ProgramIdOp: _program_id,
    O.NumProgramsOp: _program_id,
    O.SplatOp: _splat,
    O.BroadcastOp: _broadcast,
    O.ExpandDimsOp: _expand_dims,
    O.AssumeOp: _assume,
}
