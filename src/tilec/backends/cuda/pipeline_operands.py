"""Pipelined loads that are tensor-core dot operands, copied straight into the dot's layout.

A load whose only use is operand A or B of a 2-D ``tl.dot`` that runs on mma.sync in the same
loop body, and whose masked-off elements are zero (``other`` absent or +0), is copied by
cp.async into its stage slot in exactly the swizzled layout the dot reads with ldmatrix
(mma.staging): the tile never occupies registers and makes no second trip through shared
memory, as in Triton's pipeliner. cp.async zero-fills masked-off chunks, which is the ``other``
the dot must see. The slot is then shared by the whole block, so such a loop synchronizes
once per iteration (the schedule in pipeline.py).
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...ir import ops as O
from ...ir.core import Value
from ...ir.types import TileType
from .lowering_state import LoweringState
from .mma import Staged, staging

# what dynamic shared memory a block may use, by compute capability (the opt-in maximum): a
# loop whose stages hold dot operands may fill it, as Triton's stages do
_BLOCK_LIMIT = {80: 163, 86: 99, 87: 163, 89: 99, 90: 227, 100: 227, 103: 227, 120: 99, 121: 99}


def budget(arch: int) -> int:
    """Bytes the stage buffers of dot operands may take on ``arch``."""
    return _BLOCK_LIMIT.get(arch, 99 if arch > 90 else 163) * 1024


def operand_layout(L: LoweringState, loop: O.ForOp, op: O.LoadOp, nbytes: int) -> Staged | None:
    """The shared-memory layout (at offset 0) in which ``op``'s copies of ``nbytes`` can feed
    the dot that uses it, or None when ``op`` is not such an operand."""
    value, dot = op.result, _only_use(loop, op.result)
    # a 2-D tl.trans between the load and the dot (attention's K, loaded [N, D] and used as
    # tl.trans(k)): the slot holds the transposed operand, the load's axes swapped
    swapped = isinstance(dot, O.TransOp) and dot.perm == (1, 0)
    if swapped:
        assert isinstance(dot, O.TransOp)
        value, dot = dot.result, _only_use(loop, dot.result)
    if not isinstance(dot, O.DotOp) or dot.operands[2] is value:
        return None
    is_a = dot.operands[0] is value
    if is_a and dot.operands[1] is value:
        return None
    plan = L.dot_plans(dot)
    if plan is None or plan.batch or 16 % nbytes:
        return None
    if op.mask is not None and op.other is not None and not _is_plus_zero(op.other):
        return None
    assert isinstance(op.result.type, TileType)
    layout = L.want(op.result)
    contiguous = layout.order[0]
    shape = op.result.type.shape
    if swapped:
        s = staging(shape[::-1], 1 - contiguous, is_a, plan, 0)
        s = replace(s, row_axis=1 - s.row_axis, col_axis=1 - s.col_axis)  # the load's axes
    else:
        s = staging(shape, contiguous, is_a, plan, 0)
    # each copy must be a run of the smem row: vectors go along the row's contiguous axis
    return s if s.col_axis == contiguous else None


def _only_use(loop: O.ForOp, v: Value) -> O.Op | None:
    """The one op of ``loop``'s body (nested ops and the yield included) that reads ``v``."""
    users = [op for top in loop.body.ops for op in top.walk() for x in op.operands if x is v]
    return users[0] if len(users) == 1 else None


def _is_plus_zero(v: Value) -> bool:
    """Whether every element of ``v`` is the number +0 (or integer 0): a splat or broadcast
    of a constant, possibly cast."""
    op = v.defining_op
    while isinstance(op, (O.SplatOp, O.BroadcastOp, O.CastOp)):
        op = op.operands[0].defining_op
    if not isinstance(op, O.ConstantOp) or isinstance(op.value, bool):
        return False
    return op.value == 0 and math.copysign(1.0, float(op.value)) > 0
