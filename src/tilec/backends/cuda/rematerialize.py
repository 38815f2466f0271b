"""Cheap tiles are computed again in the layout a consumer wants instead of being moved there.

A layout conversion goes through shared memory between two barriers. For a tile that is a
short, pure function of ranges, constants and scalars (``rk[None, :] < K - k * BK``, an
``arange`` offset, a splat) it is cheaper to lower its ops once more in the wanted layout: a
few integer instructions per register, which LLVM hoists out of loops and merges with equal
ones. Triton's layout pass rematerializes such ops the same way. Anything else (loads,
reductions, loop-carried values, math functions) is still converted.
"""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Value
from ...ir.types import TileType
from .layout import Layout, Slice
from .lowering_state import LoweringState
from .tile import Tile

_CHEAP = (
    O.ConstantOp, O.MakeRangeOp, O.SplatOp, O.BroadcastOp, O.ExpandDimsOp, O.BinaryOp,
    O.CompareOp, O.CastOp, O.SelectOp, O.HintOp,
)  # fmt: skip
MAX_OPS = 12  # tile ops recomputed for one conversion at most


def _cheap_ops(v: Value, seen: set[Value]) -> bool:
    """Whether ``v`` follows from scalars through at most MAX_OPS cheap tile ops."""
    if not isinstance(v.type, TileType) or v in seen:
        return True
    op = v.defining_op
    if not isinstance(op, _CHEAP) or len(op.results) != 1 or len(seen) >= MAX_OPS:
        return False
    seen.add(v)
    return all(_cheap_ops(x, seen) for x in op.operands)


def rebuild(L: LoweringState, v: Value, layout: Layout) -> Tile | None:
    """``v`` lowered again in ``layout``, or None when it is not cheap enough to recompute.
    The environment keeps ``v``'s first lowering; operands in other layouts are rebuilt too."""
    if not _cheap_ops(v, set()):
        return None
    op = v.defining_op
    assert op is not None and isinstance(v.type, TileType)
    if isinstance(op, O.ExpandDimsOp):  # its layout follows its operand's: rebuild that one
        inner = L.value(op.operands[0], Slice(layout, op.axis))
        if not isinstance(inner, Tile):
            return None
        regs = {(*k[: op.axis], 0, *k[op.axis :]): r for k, r in inner.regs.items()}
        return Tile(layout, v.type.shape, regs)
    first, wished = L.env[v], L.plan.want.get(v)
    L.plan.want[v] = layout
    try:
        L.lower_op(op)
        again = L.env[v]
    finally:
        L.env[v] = first
        if wished is None:
            del L.plan.want[v]
        else:
            L.plan.want[v] = wished
    assert isinstance(again, Tile) and again.layout == layout
    return again
