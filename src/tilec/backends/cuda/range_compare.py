"""Bounds masks of ``tl.arange``: ``cols < n`` as one limit per thread and an immediate per register.

Register ``k`` of ``arange(start, end)`` holds ``start + t + off_k`` (``t`` this thread's part,
``off_k`` a compile-time offset). Compared elementwise, every register keeps its own coordinate
live (16 of a softmax row's registers, across the whole row loop). Compared as
``off_k < n - (start + t)``, one register (the limit) is live and each predicate is a compare
with an immediate, as a thread's share of a row needs. ``n`` is clamped to -1 from below, so
the subtraction cannot wrap and a negative bound still gives every lane the original answer.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Op, Value
from ...ir.types import TileType, int32
from .layout import Layout
from .lowering import Lowering, Tile
from .types import I32

# c < n, c <= n, c > n, c >= n for a range c, as the compare of off_k with the limit n - base
_PREDICATE = {
    O.CompareKind.LT: "<",
    O.CompareKind.LE: "<=",
    O.CompareKind.GT: ">",
    O.CompareKind.GE: ">=",
}
_SWAPPED = {
    O.CompareKind.LT: O.CompareKind.GT,
    O.CompareKind.LE: O.CompareKind.GE,
    O.CompareKind.GT: O.CompareKind.LT,
    O.CompareKind.GE: O.CompareKind.LE,
}


def _range_of(v: Value) -> O.MakeRangeOp | None:
    op = v.defining_op
    return op if isinstance(op, O.MakeRangeOp) and op.start >= 0 else None


def _bound_of(L: Lowering, v: Value) -> ir.Value | None:
    """The scalar a tile is a splat of (or the scalar operand itself)."""
    if not isinstance(v.type, TileType):
        return L.scalar(v) if v.type == int32 else None
    op = v.defining_op
    if isinstance(op, O.SplatOp) and op.operands[0].type == int32:
        return L.scalar(op.operands[0])
    return None


def _match(L: Lowering, op: O.CompareOp) -> tuple[O.MakeRangeOp, ir.Value, O.CompareKind] | None:
    if op.kind not in _PREDICATE or _element(op) != int32:
        return None
    x, y = op.operands
    rng, bound = _range_of(x), _bound_of(L, y)
    if rng is not None and bound is not None:
        return rng, bound, op.kind
    rng, bound = _range_of(y), _bound_of(L, x)
    if rng is not None and bound is not None:
        return rng, bound, _SWAPPED[op.kind]
    return None


def _element(op: Op) -> object:
    t = op.operands[0].type
    return t.element if isinstance(t, TileType) else t


def lower(L: Lowering, op: O.CompareOp) -> bool:
    """Lower ``op`` as a range bound when it is one (a 1-D range of a non-replicating layout
    against an i32 scalar); False leaves it to the elementwise rule."""
    found = _match(L, op)
    result = op.results[0]
    if found is None or not isinstance(result.type, TileType):
        return False
    rng, bound, kind = found
    layout: Layout = L.want(result)
    (dm,) = layout.dim_maps()
    n = rng.end - rng.start
    if dm.tile > n:
        return False  # threads wrap around the range: coordinates are not base + offset
    b = L.b
    base = ir.Constant(I32, rng.start)
    if dm.distinct_threads(n) > 1:
        t = L.thread_index(dm)
        t = b.mul(t, ir.Constant(I32, dm.spt)) if dm.spt > 1 else t
        base = b.add(t, base) if rng.start else t
    clamped = b.select(b.icmp_signed("<", bound, ir.Constant(I32, -1)), ir.Constant(I32, -1), bound)
    limit = b.sub(clamped, base)
    pred = _PREDICATE[kind]
    regs = {}
    for key in L.keys(layout, result.type.shape):
        (i,) = key
        regs[key] = b.icmp_signed(pred, ir.Constant(I32, dm.offset(i, n)), limit)
    L.set(result, Tile(layout, result.type.shape, regs))
    return True
