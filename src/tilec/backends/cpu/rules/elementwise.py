"""Rules for creation and elementwise ops: constants, ids, ranges, arithmetic, casts, math.

On scalars a rule emits code at the current position; on tiles it builds a lazy MapTile whose
stride rule carries the contiguity facts (offsets built from make_range stay stride 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import (
    ScalarType,
    TileType,
    element_of,
    shape_of,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ...llvm.intrinsics import declare
from ..lower import Lowering, map_tile, result_shape
from ..mathops import emit_math, weight
from ..scalar import binary, bitcast, cast, compare, constant
from ..tiles import ConstTile, MapTile, RangeTile, SplatTile, StrideRule, Tile, uniform_only

Fn = Callable[[ir.IRBuilder, list[ir.Value]], ir.Value]

_UNSIGNED = {t.bits: t for t in (uint8, uint16, uint32, uint64)}


def elementwise(
    lw: Lowering,
    op: Op,
    fn: Fn,
    stride_rule: StrideRule = uniform_only,
    tag: tuple[object, ...] = (),
    weight: int = 1,
) -> None:
    vals = [lw.get(v) for v in op.operands]
    if not any(isinstance(x, Tile) for x in vals):
        lw.define(op.result, fn(lw.b, vals))  # type: ignore[arg-type]
        return
    shape = result_shape(op)
    tiles = [lw.tile(v, shape) for v in op.operands]
    lw.define(op.result, map_tile(op, tiles, fn, stride_rule=stride_rule, tag=tag, weight=weight))


def _const_int(t: Tile) -> int | None:
    if (
        isinstance(t, ConstTile)
        and isinstance(t.value, ir.Constant)
        and isinstance(t.value.type, ir.IntType)
    ):
        v = int(t.value.constant)
        w = t.value.type.width
        return v - (1 << w) if v >= 1 << (w - 1) else v
    return None


def _binary_strides(kind: O.BinaryKind, tiles: list[Tile]) -> StrideRule:
    if kind is O.BinaryKind.ADD:
        return lambda s: None if None in s else s[0] + s[1]  # type: ignore[operator]
    if kind is O.BinaryKind.SUB:
        return lambda s: None if None in s else s[0] - s[1]  # type: ignore[operator]
    if kind in (O.BinaryKind.MUL, O.BinaryKind.SHL):
        k = _const_int(tiles[1]) if len(tiles) > 1 else None
        k0 = _const_int(tiles[0])
        if kind is O.BinaryKind.SHL:
            k = (1 << k) if k is not None and 0 <= k < 63 else None
            k0 = None
        return lambda s: (
            s[0] * k
            if k is not None and s[0] is not None
            else s[1] * k0
            if k0 is not None and s[1] is not None
            else uniform_only(s)
        )
    return uniform_only


def _binary(lw: Lowering, op: O.BinaryOp) -> None:
    elem = element_of(op.result.type)
    assert isinstance(elem, ScalarType)
    kind, nan = op.kind, op.propagate_nan
    tiles = [x for x in (lw.get(v) for v in op.operands) if isinstance(x, Tile)]
    rule = (
        _binary_strides(kind, [lw.tile(v, result_shape(op)) for v in op.operands])
        if (tiles and elem.is_int())
        else uniform_only
    )
    tag: tuple[object, ...] = ("and",) if kind is O.BinaryKind.AND and elem.is_bool() else ()
    facts = lw.int_facts
    # int_ranges.py: non-negative operands divide the same unsigned, and LLVM sees through it
    code_elem = _UNSIGNED[elem.bits] if op in facts.unsigned_divisions else elem
    flags = ["nsw"] if op in facts.no_signed_wrap else []
    if op in facts.no_unsigned_wrap:
        flags.append("nuw")

    def fn(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
        r = binary(b, kind, code_elem, v[0], v[1], nan)
        if flags and isinstance(r, ir.Instruction):
            r.flags.extend(flags)
        return r

    elementwise(lw, op, fn, rule, tag)


def _compare(lw: Lowering, op: O.CompareOp) -> None:
    elem = element_of(op.operands[0].type)
    kind = op.kind
    elementwise(lw, op, lambda b, v: compare(b, kind, elem, v[0], v[1]), tag=("cmp", kind.value))


def _select(lw: Lowering, op: O.SelectOp) -> None:
    elementwise(lw, op, lambda b, v: b.select(v[0], v[1], v[2]))


def _cast(lw: Lowering, op: O.CastOp) -> None:
    src, dst = element_of(op.operands[0].type), element_of(op.result.type)
    rounding = op.rounding
    int_resize = (
        isinstance(src, ScalarType)
        and isinstance(dst, ScalarType)
        and src.is_int()
        and dst.is_int()
        and not dst.is_bool()
    )
    rule: StrideRule = (lambda s: s[0]) if int_resize else uniform_only
    if int_resize and src.is_int_unsigned() and dst.bits > src.bits:  # type: ignore[union-attr]
        # LLVM 22's loop vectorizer takes zext(x + (trunc(i) & m)) for consecutive in i: a
        # gather through unsigned offsets, ptr + (pid * 4 + (idx & 3)), read ptr + pid * 4 + i.
        # The widened value is frozen first, which its analysis does not look through (the
        # tile's own stride facts still say when the offsets are consecutive)
        elementwise(lw, op, lambda b, v: cast(b, _freeze(b, v[0]), src, dst, rounding), rule)
        return
    elementwise(lw, op, lambda b, v: cast(b, v[0], src, dst, rounding), rule)


def _freeze(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``freeze x``, which llvmlite's builder does not spell: x itself, opaque to analyses."""
    if isinstance(x, ir.Constant):
        return x
    instr = ir.Instruction(b.block, x.type, "freeze", [x])
    b._insert(instr)  # the builder's one way to add an instruction it does not spell
    return instr


def _bitcast(lw: Lowering, op: O.BitcastOp) -> None:
    src, dst = element_of(op.operands[0].type), element_of(op.result.type)
    elementwise(lw, op, lambda b, v: bitcast(b, v[0], src, dst))


def _math(lw: Lowering, op: O.MathOp) -> None:
    elem = element_of(op.operands[0].type)
    assert isinstance(elem, ScalarType)
    fn = op.fn
    elementwise(lw, op, lambda b, v: emit_math(b, fn, elem, v), weight=weight(fn))


def _constant(lw: Lowering, op: O.ConstantOp) -> None:
    t = op.result.type
    value = constant(element_of(t), op.value)
    if isinstance(t, TileType):
        lw.define(op.result, ConstTile(t.shape, t.element, value, op.value))
    else:
        lw.define(op.result, value)


def _program_id(lw: Lowering, op: O.ProgramIdOp) -> None:
    lw.define(op.result, lw.pid[op.axis])


def _num_programs(lw: Lowering, op: O.NumProgramsOp) -> None:
    lw.define(op.result, lw.grid[op.axis])


def _make_range(lw: Lowering, op: O.MakeRangeOp) -> None:
    lw.define(op.result, RangeTile(op.start, op.end - op.start))


def _splat(lw: Lowering, op: O.SplatOp) -> None:
    x = lw.scalar(op.operands[0])
    t = op.result.type
    assert isinstance(t, TileType)
    if isinstance(x, ir.Constant):
        lw.define(op.result, ConstTile(t.shape, t.element, x))
    else:
        lw.define(op.result, SplatTile(t.shape, t.element, x))


def _hint(lw: Lowering, op: O.HintOp) -> None:
    x = lw.get(op.operands[0])
    shape = shape_of(op.result.type)
    contiguous = op.max_contiguous[-1] if op.max_contiguous else 0
    if isinstance(x, Tile) and x.stride() is None and shape and contiguous >= shape[-1] > 1:
        # the user promises each row counts up by one: keep the value, record the fact
        x = MapTile(
            x.shape, x.elem, [x], lambda b, v: v[0], lambda s: 1, weight=0, innermost_only=True
        )
    lw.env[op.result] = x


def _assume(lw: Lowering, op: O.AssumeOp) -> None:
    x = lw.get(op.operands[0])
    if isinstance(x, Tile):
        return  # facts about whole tiles are not used by this backend
    lw.b.call(declare(lw.b.module, "llvm.assume", ir.VoidType(), [ir.IntType(1)]), [x])


RULES: dict[type, Callable[..., None]] = {
    O.ConstantOp: _constant,
    O.ProgramIdOp: _program_id,
    O.NumProgramsOp: _num_programs,
    O.MakeRangeOp: _make_range,
    O.SplatOp: _splat,
    O.BinaryOp: _binary,
    O.CompareOp: _compare,
    O.SelectOp: _select,
    O.CastOp: _cast,
    O.BitcastOp: _bitcast,
    O.MathOp: _math,
    O.HintOp: _hint,
    O.AssumeOp: _assume,
}

__all__: Sequence[str] = ["RULES", "elementwise"]
