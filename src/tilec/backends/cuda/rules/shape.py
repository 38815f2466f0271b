"""Ops that move elements between positions: reshape, trans, join, split, cat and flip.

Each goes through shared memory in row-major order (``Lowering.remap``): the result takes its
planned layout and reads the source element its coordinates name.
"""

from __future__ import annotations

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op, Value
from ....ir.types import TileType
from ..layout import Blocked, DimMap
from ..lowering import Lowering, Rule
from ..thread_index import Index
from ..types import I32


def _shape(v: Value) -> tuple[int, ...]:
    assert isinstance(v.type, TileType)
    return v.type.shape


def _reshape(L: Lowering, op: Op) -> None:
    src = L.tile(op.operands[0])
    out = _shape(op.result)
    L.set(op.result, L.remap([src], L.want(op.result), out, lambda c: L.linear(c, out)))


def _trans(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.TransOp)
    staged = L.shared_operands.get(op.operands[0])
    if staged is not None:  # a dot operand the pipeline copied transposed (pipeline_operands)
        L.shared_operands[op.result] = staged
        return
    src = L.tile(op.operands[0])
    perm = op.perm

    def index(c: list) -> ir.Value | Index:  # type: ignore[type-arg]
        coords: list = [0] * len(perm)  # type: ignore[type-arg]
        for i, p in enumerate(perm):
            coords[p] = c[i]
        return L.linear(coords, src.shape)

    L.set(op.result, L.remap([src], L.want(op.result), _shape(op.result), index))


def _join(L: Lowering, op: Op) -> None:
    a, b = (L.tile(v) for v in op.operands)

    def index(c: list) -> ir.Value | Index:  # type: ignore[type-arg]
        return L.linear([c[-1], *c[:-1]], (2, *a.shape))  # tile c[-1], element c[:-1]

    L.set(op.result, L.remap([a, b], L.want(op.result), _shape(op.result), index))


def _split(L: Lowering, op: Op) -> None:
    src = L.tile(op.operands[0])
    if not isinstance(op.results[0].type, TileType):  # a [2] tile splits into two scalars
        both = L.remap([src], Blocked((DimMap(spt=2),), (0,)), (2,), lambda c: c[0])
        for half, result in enumerate(op.results):
            L.set(result, both.regs[(half,)])
        return
    for half, result in enumerate(op.results):
        out = _shape(result)

        def index(c: list, half: int = half) -> ir.Value | Index:  # type: ignore[type-arg]
            return L.linear([*c, half], src.shape)

        L.set(result, L.remap([src], L.want(result), out, index))


def _cat(L: Lowering, op: Op) -> None:
    a, b = (L.tile(v) for v in op.operands)
    out = _shape(op.result)
    L.set(op.result, L.remap([a, b], L.want(op.result), out, lambda c: L.linear(c, out)))


def _flip(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.FlipOp)
    src = L.tile(op.operands[0])
    n = src.shape[op.axis]

    def index(c: list) -> ir.Value | Index:  # type: ignore[type-arg]
        coords = list(c)
        x = c[op.axis]
        coords[op.axis] = (
            (n - 1) - x if isinstance(x, Index) else L.b.sub(ir.Constant(I32, n - 1), x)
        )
        return L.linear(coords, src.shape)

    L.set(op.result, L.remap([src], L.want(op.result), src.shape, index))


RULES: dict[type, Rule] = {
    O.ReshapeOp: _reshape,
    O.TransOp: _trans,
    O.JoinOp: _join,
    O.SplitOp: _split,
    O.CatOp: _cat,
    O.FlipOp: _flip,
}
