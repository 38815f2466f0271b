"""Canonicalization: algebraic identities and structural simplifications.

``x + 0``, ``x * 1``, ``x * 0`` (integers), no-op casts/broadcasts/reshapes/transposes,
``broadcast(splat(s))`` → ``splat(s)``, ``select(c, a, a)``, ``addptr(p, 0)``, an ``if`` on a
constant condition (its taken branch is inlined) and a ``for`` with constant bounds that never runs.
"""

from __future__ import annotations

from ..ir.core import Block, Op, Value
from ..ir.ops import (
    AddPtrOp,
    BinaryKind,
    BinaryOp,
    BitcastOp,
    BroadcastOp,
    CastOp,
    ConstantOp,
    ExpandDimsOp,
    ForOp,
    IfOp,
    ModuleOp,
    ReshapeOp,
    SelectOp,
    SplatOp,
    TransOp,
    YieldOp,
)
from ..ir.types import ScalarType, element_of


def _const(v: Value) -> bool | int | float | None:
    op = v.defining_op
    return op.value if isinstance(op, ConstantOp) else None


def _is(v: Value, value: int) -> bool:
    c = _const(v)
    return c is not None and not isinstance(c, bool) and c == value


def _is_int(v: Value) -> bool:
    e = element_of(v.type)
    return isinstance(e, ScalarType) and e.is_int()


def _binary_identity(op: BinaryOp) -> Value | None:
    a, b = op.operands
    k = op.kind
    if k in (BinaryKind.ADD, BinaryKind.OR, BinaryKind.XOR) and _is_int(a):
        if _is(b, 0):
            return a
        if _is(a, 0):
            return b
    if k in (BinaryKind.SUB, BinaryKind.SHL, BinaryKind.SHR) and _is_int(a) and _is(b, 0):
        return a
    if k is BinaryKind.MUL:
        if _is(b, 1):
            return a
        if _is(a, 1):
            return b
        if _is_int(a) and _is(b, 0):
            return b
        if _is_int(a) and _is(a, 0):
            return a
    if k is BinaryKind.DIV and _is(b, 1):
        return a
    return None


def _simplify(op: Op) -> Value | None:
    """A value that replaces ``op``'s single result, or None."""
    if isinstance(op, BinaryOp):
        return _binary_identity(op)
    if isinstance(op, (CastOp, BitcastOp, BroadcastOp, ReshapeOp)):
        src = op.operands[0]
        if src.type == op.results[0].type:
            return src
    if isinstance(op, TransOp) and op.perm == tuple(range(len(op.perm))):
        return op.operands[0]
    if isinstance(op, SelectOp):
        cond, a, b = op.operands
        if a is b:
            return a
        c = _const(cond)
        if c is not None:
            return a if c else b
    if isinstance(op, AddPtrOp) and _is(op.operands[1], 0):
        return op.operands[0]
    return None


def _rewrite(op: Op, block: Block) -> Op | None:
    """A cheaper op computing the same value, inserted before ``op``, or None."""
    src = op.operands[0] if op.operands else None
    inner = src.defining_op if src is not None else None
    if isinstance(op, (BroadcastOp, ExpandDimsOp, ReshapeOp)) and isinstance(inner, SplatOp):
        new: Op = SplatOp(inner.operands[0], op.results[0].type.shape, op.loc)  # type: ignore[union-attr]
        block.insert(block.ops.index(op), new)
        return new
    return None


def _inline_if(op: IfOp, block: Block, subst: dict[Value, Value]) -> bool:
    c = _const(op.operands[0])
    if c is None:
        return False
    taken = op.then_block if c else op.else_block
    index = block.ops.index(op)
    for inner in list(taken.ops):
        if isinstance(inner, YieldOp):
            subst.update(zip(op.results, (subst.get(v, v) for v in inner.operands)))
            continue
        taken.ops.remove(inner)
        block.insert(index, inner)
        index += 1
    op.erase()
    return True


def _drop_empty_for(op: ForOp, subst: dict[Value, Value]) -> bool:
    lb, ub, step = (_const(v) for v in op.operands[:3])
    if lb is None or ub is None or step is None or not isinstance(step, int) or step <= 0:
        return False
    if lb < ub:
        return False
    subst.update(zip(op.results, op.init_args))
    op.erase()
    return True


def _visit(block: Block, subst: dict[Value, Value]) -> None:
    for op in list(block.ops):
        op.operands = [subst.get(v, v) for v in op.operands]
        for region in op.regions:
            for inner in region.blocks:
                _visit(inner, subst)
        if isinstance(op, IfOp) and _inline_if(op, block, subst):
            continue
        if isinstance(op, ForOp) and _drop_empty_for(op, subst):
            continue
        if len(op.results) != 1 or op.regions:
            continue
        value = _simplify(op)
        if value is None:
            new = _rewrite(op, block)
            value = new.results[0] if new is not None else None
        if value is not None:
            subst[op.result] = value
            op.erase()


def run(module: ModuleOp) -> None:
    _visit(module.body, {})
