"""Rules for reductions and scans.

A single-operand reduction whose combine region is one commutative op (sum, max, min, ...), along
the axis its nest runs innermost (the last, or the one its memory runs along: inner_axis.py),
accumulates in a register with reassociation allowed, so LLVM vectorizes it (a tree of SIMD
partial results); along the last axis of a tile whose memory runs along another, it accumulates
a buffer of results at once along that axis instead. Any other reduction or scan (argmax's two
operands, user combine functions, other axes) runs the combine region element by element: the
axis in an outer loop, the remaining dimensions in a contiguous inner nest.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Block, Op, Value
from ....ir.types import Kind, ScalarType, element_of, shape_of
from ...llvm import types as T
from ..inner_axis import inner_axis
from ..load_tile import find_split
from ..lower import Lowered, Lowering
from ..nest import counted_loop, each_index, emit_nest
from ..scalar import binary, constant, from_compute, to_compute
from ..tiles import BufferTile, Index, Scope, Tile

_COMMUTATIVE = {
    O.BinaryKind.ADD,
    O.BinaryKind.MUL,
    O.BinaryKind.MIN,
    O.BinaryKind.MAX,
    O.BinaryKind.AND,
    O.BinaryKind.OR,
    O.BinaryKind.XOR,
}


@dataclass(frozen=True)
class Combine:
    """A combine region that is one commutative op."""

    kind: O.BinaryKind
    propagate_nan: bool = False


def simple_combine(op: O.ReduceOp | O.ScanOp) -> Combine | None:
    """The combine region's single commutative op, when that is all it does: one BinaryOp, or
    the compare-and-select spelling of max/min (:func:`_select_minmax`)."""
    block = op.combine
    if len(op.operands) != 1:
        return None
    if len(block.ops) == 2:
        bin_op, term = block.ops
        if not isinstance(bin_op, O.BinaryOp) or bin_op.kind not in _COMMUTATIVE:
            return None
        if set(bin_op.operands) != set(block.args) or list(term.operands) != [bin_op.result]:
            return None
        return Combine(bin_op.kind, bin_op.propagate_nan)
    return _select_minmax(block)


_PICKS = {
    O.CompareKind.GT: O.BinaryKind.MAX,
    O.CompareKind.GE: O.BinaryKind.MAX,
    O.CompareKind.LT: O.BinaryKind.MIN,
    O.CompareKind.LE: O.BinaryKind.MIN,
}


def _select_minmax(block: Block) -> Combine | None:
    """``where(a > b, a, b)`` on integers, ``where(a > b or a != a, a, b)`` on floats (Inductor's
    ``triton_helpers.maximum``; ``<`` for minimum): max (min) with NaN propagated. They differ
    from it only in which zero a tie of +0 and -0 keeps, which a reduction leaves open."""
    if len(block.ops) < 2:  # a combine that yields an argument: no select to read
        return None
    *body, select, term = block.ops
    if not (isinstance(select, O.SelectOp) and list(term.operands) == [select.result]):
        return None
    mask, a, b = select.operands
    if {a, b} != set(block.args) or a is b:
        return None
    floating = element_of(a.type).is_floating()  # type: ignore[union-attr]
    ops = {o.result: o for o in body}
    if floating:
        either = ops.get(mask)
        if not (isinstance(either, O.BinaryOp) and either.kind is O.BinaryKind.OR):
            return None
        parts = [ops.get(v) for v in either.operands]
        nans = [p for p in parts if _is_compare(p, O.CompareKind.NE, a, a)]
        if len(nans) != 1 or len(body) != 3:
            return None
        cmp = parts[1 - parts.index(nans[0])]
    else:
        cmp = ops.get(mask)
        if len(body) != 1:
            return None
    if not isinstance(cmp, O.CompareOp) or list(cmp.operands) != [a, b]:
        return None
    kind = _PICKS.get(cmp.kind)
    return Combine(kind, propagate_nan=floating) if kind is not None else None


def _is_compare(op: Op | None, kind: O.CompareKind, x: Value, y: Value) -> bool:
    return isinstance(op, O.CompareOp) and op.kind is kind and list(op.operands) == [x, y]


def identity(kind: O.BinaryKind, elem: ScalarType) -> float | int:
    if kind in (O.BinaryKind.ADD, O.BinaryKind.OR, O.BinaryKind.XOR):
        return 0
    if kind is O.BinaryKind.MUL:
        return 1
    if kind is O.BinaryKind.AND:
        return -1
    big = kind is O.BinaryKind.MIN
    if elem.is_floating():
        return math.inf if big else -math.inf
    if elem.kind is Kind.SINT:
        return (1 << (elem.bits - 1)) - 1 if big else -(1 << (elem.bits - 1))
    return (1 << elem.bits) - 1 if big else 0


def _fast_binary(
    b: ir.IRBuilder, bin_op: Combine, elem: ScalarType, x: ir.Value, y: ir.Value
) -> ir.Value:
    if (
        elem.is_floating()
        and bin_op.kind in (O.BinaryKind.ADD, O.BinaryKind.MUL)
        and elem.name in ("fp32", "fp64")
    ):
        r = b.fadd(x, y) if bin_op.kind is O.BinaryKind.ADD else b.fmul(x, y)
        r.flags.append("reassoc")  # lets the vectorizer keep SIMD partial sums
        return r
    return binary(b, bin_op.kind, elem, x, y, bin_op.propagate_nan, simd_minmax=True)


def apply_combine(
    lw: Lowering, op: O.ReduceOp | O.ScanOp, accs: Sequence[ir.Value], news: Sequence[ir.Value]
) -> list[ir.Value]:
    """Run the combine region on scalars at the current position."""
    block = op.combine
    for arg, v in zip(block.args, [*accs, *news]):
        lw.env[arg] = v
    lw.in_combine = True
    try:
        for inner in block.ops[:-1]:
            lw.lower_op(inner)
    finally:
        lw.in_combine = False
    return [lw.scalar(v) for v in block.ops[-1].operands]


def _insert(idx: Index, axis: int, k: ir.Value) -> Index:
    return (*idx[:axis], k, *idx[axis:])


def _reduce(lw: Lowering, op: O.ReduceOp) -> None:
    shape = shape_of(op.operands[0].type)
    tiles = [lw.tile(v, shape) for v in op.operands]
    bin_op = simple_combine(op)
    last = len(shape) - 1
    # only memory read in place decides: over a buffer (in cache) LLVM's code for the last axis
    # is as good, and for a short run of results across it unrolls the run and gathers
    inner = inner_axis(shape, tiles[:1]) if bin_op is not None and tiles[0].has_load else last
    if bin_op is not None and (inner == op.axis or op.axis == last):
        group = [(op, bin_op), *_siblings(lw, op)]
        if inner == op.axis:
            _reduce_inner(lw, group, tiles[0], inner)
        else:
            _reduce_across(lw, group, tiles[0], inner)
        return
    lanes = lw.vector_width
    if op.axis == len(shape) - 1 and shape[-1] % lanes == 0 and shape[-1] >= 2 * lanes:
        tiles = list(_lane_partials(lw, op, tiles, lanes))
    _reduce_generic(lw, op, tiles)


def _lane_partials(lw: Lowering, op: O.ReduceOp, tiles: list[Tile], lanes: int) -> list[BufferTile]:
    """Reduce each row to ``lanes`` partial results, lane j combining elements j, j+lanes, ...

    The combine then runs on every lane at once, so LLVM vectorizes any combine region (argmax's
    compare-and-select included); the caller reduces the partials. Like Triton, this assumes the
    combine function is associative and commutative."""
    *outer, n = tiles[0].shape
    shape = (*outer, lanes)
    parts = [lw.buffer(t.elem, shape) for t in tiles]

    def first(s: Scope, idx: Index) -> None:
        for p, t in zip(parts, tiles):
            s.b.store(s.get(t, idx), p.element_ptr(s, idx))

    emit_nest(lw.b, shape, first)
    with counted_loop(lw.b, ir.Constant(T.i64, 1), ir.Constant(T.i64, n // lanes), "kl") as k:
        base = lw.b.mul(k, ir.Constant(T.i64, lanes))

        def step(s: Scope, idx: Index) -> None:
            ptrs = [p.element_ptr(s, idx) for p in parts]
            cur = [s.b.load(q, typ=T.storage_type(p.elem)) for q, p in zip(ptrs, parts)]
            at = (*idx[:-1], s.b.add(base, idx[-1]))
            new = [s.get(t, at) for t in tiles]
            for q, v in zip(ptrs, apply_combine(lw, op, cur, new)):
                s.b.store(v, q)

        emit_nest(lw.b, shape, step)
    return parts


def _float_minmax(elem: ScalarType, c: Combine) -> bool:
    return elem.is_floating() and c.kind in (O.BinaryKind.MIN, O.BinaryKind.MAX)


def _siblings(lw: Lowering, op: O.ReduceOp) -> list[tuple[O.ReduceOp, Combine]]:
    """Later reductions of the same tile along the same axis with a simple combine (Inductor's
    ``x.sum(-1) + x.amax(-1)``), reduced in the same pass over the tile as ``op``: they are pure
    and their operand is already defined. One float min/max per pass at most (llvm/scalar.py:
    LLVM 22's vectorizer miscompiles loops with several)."""
    block = op.parent
    if lw.probing or block is None:
        return []
    elem = element_of(op.operands[0].type)
    assert isinstance(elem, ScalarType)
    first = simple_combine(op)
    minmax = first is not None and _float_minmax(elem, first)
    found = []
    for other in block.ops[block.ops.index(op) + 1 :]:
        if not isinstance(other, O.ReduceOp) or other.operands != op.operands:
            continue
        combine = simple_combine(other)
        if other.axis != op.axis or combine is None or other in lw.op_hooks:
            continue
        if _float_minmax(elem, combine):
            if minmax:
                continue
            minmax = True
        lw.op_hooks[other] = _already_reduced
        found.append((other, combine))
    return found


def _already_reduced(lw: Lowering, op: Op) -> None:
    """A reduction done in an earlier one's pass (:func:`_siblings`)."""


def _initial(elem: ScalarType, group: list[tuple[O.ReduceOp, Combine]]) -> list[ir.Value]:
    inits = []
    for _, combine in group:
        start = identity(combine.kind, elem)
        if _float_minmax(elem, combine) and not combine.propagate_nan:
            start = math.nan  # minnum/maxnum skip it, and a row of NaNs stays NaN (as in Triton)
        inits.append(constant(elem, start))
    return inits


def _reduce_inner(
    lw: Lowering, group: list[tuple[O.ReduceOp, Combine]], x: Tile, axis: int
) -> None:
    """Each reduction of ``group`` (all of ``x``, along ``axis``, which the nest runs
    innermost) in one accumulator, all in one pass over ``x``."""
    elem = element_of(group[0][0].operands[0].type)
    assert isinstance(elem, ScalarType)
    acc_t = T.storage_type(elem)
    accs = [lw.slot(acc_t) for _ in group]
    inits = _initial(elem, group)
    out_shape = shape_of(group[0][0].result.type)
    outs = [lw.buffer(elem, out_shape) for _ in group] if out_shape else None

    def body(s: Scope, idx: Index) -> None:
        v = s.get(x, idx)
        for acc, (_, combine) in zip(accs, group):
            cur = s.b.load(acc, typ=acc_t)
            s.b.store(_fast_binary(s.b, combine, elem, cur, v), acc)

    def begin(s: Scope, outer: Index) -> None:
        for acc, init in zip(accs, inits):
            s.b.store(init, acc)

    def end(s: Scope, outer: Index) -> None:
        for acc, out in zip(accs, outs or []):
            s.b.store(s.b.load(acc, typ=acc_t), out.element_ptr(s, outer))

    # LLVM 22 vectorizes float min/max reductions with a NaN-aware scheme that asserts on loops
    # with a run-time trip count: partial rows of those keep one masked loop of fixed length
    emit_nest(
        lw.b,
        x.shape,
        body,
        find_split([x], axis=axis),
        row_begin=begin,
        row_end=end,
        masked_partial_rows=any(_float_minmax(elem, c) for _, c in group),
        inner=axis,
    )
    for i, (op, _) in enumerate(group):
        lw.define(op.result, outs[i] if outs is not None else lw.b.load(accs[i], typ=acc_t))


def _reduce_across(
    lw: Lowering, group: list[tuple[O.ReduceOp, Combine]], x: Tile, inner: int
) -> None:
    """Each reduction of ``group`` (all of ``x``, along its last axis) into a buffer of results,
    in one pass over ``x`` whose innermost loop runs axis ``inner``: every step combines one
    element into each of a run of results (independent lanes, no reassociation needed)."""
    elem = element_of(group[0][0].operands[0].type)
    assert isinstance(elem, ScalarType)
    acc_t = T.storage_type(elem)
    out_shape = shape_of(group[0][0].result.type)
    outs = [lw.buffer(elem, out_shape, inner) for _ in group]
    inits = _initial(elem, group)

    def first(s: Scope, idx: Index) -> None:
        for out, init in zip(outs, inits):
            s.b.store(init, out.element_ptr(s, idx))

    def body(s: Scope, idx: Index) -> None:
        v = s.get(x, idx)
        for out, (_, combine) in zip(outs, group):
            ptr = out.element_ptr(s, idx[:-1])
            cur = s.b.load(ptr, typ=acc_t)
            s.b.store(_fast_binary(s.b, combine, elem, cur, v), ptr)

    emit_nest(lw.b, out_shape, first, inner=inner)
    split = find_split([x], axis=inner)
    minmax = any(_float_minmax(elem, c) for _, c in group)
    emit_nest(lw.b, x.shape, body, split, masked_partial_rows=minmax, inner=inner)
    for (op, _), out in zip(group, outs):
        lw.define(op.result, out)


def _reduce_generic(lw: Lowering, op: O.ReduceOp, tiles: list[Tile]) -> None:
    axis = op.axis
    n = tiles[0].shape[axis]
    out_shape = shape_of(op.results[0].type)
    accs = [lw.buffer(element_of(r.type), out_shape or (1,)) for r in op.results]

    def at(s: Scope, idx: Index) -> Index:
        return idx if out_shape else (s.zero,)

    def first(s: Scope, idx: Index) -> None:
        for a, t in zip(accs, tiles):
            s.b.store(s.get(t, _insert(idx, axis, s.zero)), a.element_ptr(s, at(s, idx)))

    each_index(lw.b, out_shape, first)
    with counted_loop(lw.b, ir.Constant(T.i64, 1), ir.Constant(T.i64, n), "k") as k:

        def step(s: Scope, idx: Index) -> None:
            ptrs = [a.element_ptr(s, at(s, idx)) for a in accs]
            cur = [s.b.load(p, typ=T.storage_type(a.elem)) for p, a in zip(ptrs, accs)]
            new = [s.get(t, _insert(idx, axis, k)) for t in tiles]
            for p, v in zip(ptrs, apply_combine(lw, op, cur, new)):
                s.b.store(v, p)

        each_index(lw.b, out_shape, step)
    _define_results(lw, op.results, accs, bool(out_shape))


def _define_results(
    lw: Lowering, results: Sequence[Value], bufs: Sequence[BufferTile], tiles: bool
) -> None:
    for r, buf in zip(results, bufs):
        value: Lowered = buf if tiles else lw.b.load(buf.addr, typ=T.storage_type(buf.elem))
        lw.define(r, value)


def _scan(lw: Lowering, op: O.ScanOp) -> None:
    shape = shape_of(op.operands[0].type)
    tiles = [lw.tile(v, shape) for v in op.operands]
    axis, n = op.axis, shape[op.axis]
    rest = shape[:axis] + shape[axis + 1 :]
    outs = [lw.buffer(t.elem, shape) for t in tiles]

    def pos(s: Scope, k: int | ir.Value) -> ir.Value:
        kk = s.const(k) if isinstance(k, int) else k
        return s.b.sub(s.const(n - 1), kk) if op.reverse else kk

    def first(s: Scope, idx: Index) -> None:
        full = _insert(idx, axis, pos(s, 0))
        for o, t in zip(outs, tiles):
            s.b.store(s.get(t, full), o.element_ptr(s, full))

    each_index(lw.b, rest, first)
    with counted_loop(lw.b, ir.Constant(T.i64, 1), ir.Constant(T.i64, n), "k") as k:

        def step(s: Scope, idx: Index) -> None:
            here = _insert(idx, axis, pos(s, k))
            prev_k = s.b.sub(k, s.const(1))
            prev = _insert(idx, axis, pos(s, prev_k))
            cur = [s.b.load(o.element_ptr(s, prev), typ=T.storage_type(o.elem)) for o in outs]
            new = [s.get(t, here) for t in tiles]
            for o, v in zip(outs, apply_combine(lw, op, cur, new)):
                s.b.store(v, o.element_ptr(s, here))

        each_index(lw.b, rest, step)
    for r, o in zip(op.results, outs):
        lw.define(r, o)


RULES: dict[type, Callable[..., None]] = {
    O.ReduceOp: _reduce,
    O.ScanOp: _scan,
}

__all__ = ["RULES", "from_compute", "to_compute"]
