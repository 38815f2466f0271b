"""Rules for shape ops: broadcast, expand_dims, reshape, trans, join, split, cat, flip.

Each is an index remapping (a ViewTile) over its source, so no data moves; a source that is
expensive to recompute is materialized first, since a remapped read defeats fusion's reuse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op, Value
from ....ir.types import TileType, shape_of
from ..lower import Lowering, expensive
from ..tiles import UNREAD, Index, Scope, SplatTile, Tile, ViewTile, linear_index


def _shape(op: Op, i: int = 0) -> tuple[int, ...]:
    t = op.results[i].type
    assert isinstance(t, TileType)
    return t.shape


def _source(lw: Lowering, v: Value) -> Tile:
    t = lw.tile(v, shape_of(v.type) or (1,))
    if t.has_load or expensive(t):
        t = lw.settle(t)
    return t


def _broadcast(lw: Lowering, op: O.BroadcastOp) -> None:
    src = lw.tile(op.operands[0], _shape(op))
    dst = _shape(op)
    if src.shape == dst:
        lw.env[op.result] = src
        return
    keep = [s == d for s, d in zip(src.shape, dst)]

    def index_map(s: Scope, idx: Index) -> Index:
        return tuple(i if k else s.zero for i, k in zip(idx, keep))

    stride = src.stride() if keep[-1] else 0
    axes = tuple(a if k else UNREAD for a, k in enumerate(keep))
    lw.define(op.result, ViewTile(dst, src, index_map, stride, keep[-1], axes))


def _expand_dims(lw: Lowering, op: O.ExpandDimsOp) -> None:
    dst = _shape(op)
    src = lw.tile(op.operands[0], dst)
    axis = op.axis if op.axis >= 0 else len(dst) + op.axis

    def index_map(s: Scope, idx: Index) -> Index:
        return idx[:axis] + idx[axis + 1 :]

    last = axis == len(dst) - 1
    stride = 0 if last else src.stride()
    axes = tuple(UNREAD if a == axis else a - (a > axis) for a in range(len(dst)))
    lw.define(op.result, ViewTile(dst, src, index_map, stride, not last, axes))


def _reshape(lw: Lowering, op: O.ReshapeOp) -> None:
    dst = _shape(op)
    x = lw.get(op.operands[0])
    if not isinstance(x, Tile):  # a scalar seen as a tile of one element
        lw.define(op.result, SplatTile(dst, op.result.type.element, x))  # type: ignore[union-attr]
        return
    if x.shape == dst:
        lw.env[op.result] = x
        return
    src = _source(lw, op.operands[0])
    squeezed = [d for d in src.shape if d != 1] == [d for d in dst if d != 1]
    axes: tuple[int | None, ...] | None = None
    if squeezed:
        src_pos = [i for i, d in enumerate(dst) if d != 1]
        kept = iter(a for a, d in enumerate(src.shape) if d != 1)
        axes = tuple(UNREAD if d == 1 else next(kept) for d in dst)

        def index_map(s: Scope, idx: Index) -> Index:
            it = iter(idx[i] for i in src_pos)
            return tuple(s.zero if d == 1 else next(it) for d in src.shape)
    else:

        def index_map(s: Scope, idx: Index) -> Index:
            lin = linear_index(s, dst, idx)
            out = []
            for d in reversed(src.shape):
                out.append(s.b.urem(lin, s.const(d)) if d != 1 else s.zero)
                lin = s.b.udiv(lin, s.const(d)) if d != 1 else lin
            return tuple(reversed(out))

    same_inner = src.shape[-1] == dst[-1] and (squeezed or len(dst) == len(src.shape))
    stride = src.stride() if same_inner else None
    lw.define(op.result, ViewTile(dst, src, index_map, stride, axes=axes))


def _trans(lw: Lowering, op: O.TransOp) -> None:
    src = _source(lw, op.operands[0])
    perm = op.perm
    inverse = [perm.index(d) for d in range(len(perm))]

    def index_map(s: Scope, idx: Index) -> Index:
        return tuple(idx[inverse[d]] for d in range(len(perm)))

    same = perm[-1] == len(perm) - 1
    stride = src.stride() if same else None
    lw.define(op.result, ViewTile(_shape(op), src, index_map, stride, same, tuple(perm)))


def _flip(lw: Lowering, op: O.FlipOp) -> None:
    src = _source(lw, op.operands[0])
    axis, n = op.axis, src.shape[op.axis]

    def index_map(s: Scope, idx: Index) -> Index:
        return (*idx[:axis], s.b.sub(s.const(n - 1), idx[axis]), *idx[axis + 1 :])

    st = src.stride()
    stride = (-st if st is not None else None) if axis == len(src.shape) - 1 else st
    lw.define(op.result, ViewTile(_shape(op), src, index_map, stride))


class ChoiceTile(Tile):
    """Element from ``a`` or ``b`` by an index test; both sides use in-bounds indices."""

    def __init__(
        self,
        shape: tuple[int, ...],
        a: Tile,
        b: Tile,
        pick: Callable[[Scope, Index], tuple[ir.Value, Index, Index]],
    ):
        self.shape, self.elem, self.a, self.b, self.pick = shape, a.elem, a, b, pick
        self.has_load = a.has_load or b.has_load

    def emit(self, s: Scope, idx: Index) -> ir.Value:
        use_a, ia, ib = self.pick(s, idx)
        return s.b.select(use_a, s.get(self.a, ia), s.get(self.b, ib))

    def cost(self) -> int:
        return self.a.cost() + self.b.cost() + 1

    def children(self) -> Sequence[Tile]:
        return (self.a, self.b)


def _join(lw: Lowering, op: O.JoinOp) -> None:
    a, b = (lw.tile(v, _shape(op)[:-1]) for v in op.operands)

    def pick(s: Scope, idx: Index) -> tuple[ir.Value, Index, Index]:
        return s.b.icmp_unsigned("==", idx[-1], s.zero), idx[:-1], idx[:-1]

    lw.define(op.result, ChoiceTile(_shape(op), a, b, pick))


def _split(lw: Lowering, op: O.SplitOp) -> None:
    src = _source(lw, op.operands[0])
    for k, res in enumerate(op.results):
        t = res.type
        if not isinstance(t, TileType):  # splitting a (2,) tile gives two scalars
            s = Scope(lw.b)
            lw.env[res] = s.get(src, (s.const(k),))
            continue

        def index_map(s: Scope, idx: Index, k: int = k) -> Index:
            return (*idx, s.const(k))

        lw.define(res, ViewTile(t.shape, src, index_map, None))


def _cat(lw: Lowering, op: O.CatOp) -> None:
    a, b = (lw.tile(v, _shape(op)) for v in op.operands)
    n0 = a.shape[0]
    n1 = b.shape[0]

    def pick(s: Scope, idx: Index) -> tuple[ir.Value, Index, Index]:
        i = idx[0]
        use_a = s.b.icmp_unsigned("<", i, s.const(n0))
        ia = s.b.select(use_a, i, s.const(n0 - 1))
        ib = s.b.select(use_a, s.zero, s.b.sub(i, s.const(n0)))
        ib = s.b.select(s.b.icmp_unsigned("<", ib, s.const(n1)), ib, s.const(n1 - 1))
        return use_a, (ia, *idx[1:]), (ib, *idx[1:])

    lw.define(op.result, ChoiceTile(_shape(op), a, b, pick))


RULES: dict[type, Callable[..., None]] = {
    O.BroadcastOp: _broadcast,
    O.ExpandDimsOp: _expand_dims,
    O.ReshapeOp: _reshape,
    O.TransOp: _trans,
    O.FlipOp: _flip,
    O.JoinOp: _join,
    O.SplitOp: _split,
    O.CatOp: _cat,
}
