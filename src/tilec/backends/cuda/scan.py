"""Scans in place, as Triton does: within a thread, across lanes, across warps.

Along the scanned axis a thread holds ``spt`` contiguous elements in each of ``reps`` chunks
(the layout's tile repeats every ``spt * tpw * wpc`` elements). Each chunk is scanned in the
thread; the chunk totals go through a butterfly over the lanes along the axis, which leaves
every lane both the combined total of the lanes before it and the warp's total; the warps'
totals meet in shared memory; chunk ``r`` then starts from the totals of the chunks before it.
Only the combine region is known (no identity), so each prefix carries whether it exists.
Elements combine in scan order everywhere, so any associative combine function is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir

from ...ir import ops as O
from .layout import DimMap, Layout, Slice
from .lowering import Key, Lowering, Tile
from .types import I1, I32

Values = list[ir.Value]
Combine = Callable[[Values, Values], Values]


@dataclass(frozen=True)
class _Prefix:
    """Values combined from everything before a position, if anything is: ``has`` is False,
    True or an i1 known at run time."""

    values: Values
    has: bool | ir.Value


_NONE = _Prefix([], False)


class _Scanner:
    def __init__(self, L: Lowering, op: O.ScanOp, combine: Combine, dm: DimMap, n: int) -> None:
        self.L, self.b, self.op, self.dm = L, L.b, op, dm
        self.combine_values = combine
        # lanes and warps holding different elements; the others repeat them (thread t holds
        # what thread t mod distinct does) and compute the same values
        self.lanes, self.warps = dm.distinct_lanes(n), dm.distinct_warps(n)
        c = lambda v: ir.Constant(I32, v)  # noqa: E731
        self.lane_d = self.b.urem(self.b.udiv(L.lane, c(dm.lane_stride)), c(self.lanes))
        self.warp_d = self.b.urem(self.b.udiv(L.warp, c(dm.warp_stride)), c(self.warps))

    def then(self, first: _Prefix, second: _Prefix) -> _Prefix:
        """``first`` followed by ``second`` (either may be absent)."""
        if first.has is False:
            return second
        if second.has is False:
            return first
        both = self.combine_values(first.values, second.values)
        if first.has is True and second.has is True:
            return _Prefix(both, True)
        b = self.b
        out = []
        for v_both, v1, v2 in zip(both, first.values, second.values):
            v = v_both if first.has is True else b.select(first.has, v_both, v2)
            out.append(v if second.has is True else b.select(second.has, v, v1))
        return _Prefix(out, self._or(first.has, second.has))

    def _or(self, x: bool | ir.Value, y: bool | ir.Value) -> bool | ir.Value:
        if x is True or y is True:
            return True
        if x is False:
            return y
        if y is False:
            return x
        return self.b.or_(x, y)

    def across_lanes(self, total: Values) -> tuple[_Prefix, Values]:
        """Butterfly over the lanes along the axis: (the lanes before this one, the total)."""
        b, prefix = self.b, _NONE
        d = 1
        while d < self.lanes:
            other = [self.L.target.shuffle_xor(b, v, d * self.dm.lane_stride) for v in total]
            upper = b.icmp_unsigned(
                "!=", b.and_(self.lane_d, ir.Constant(I32, d)), ir.Constant(I32, 0)
            )
            after = b.not_(upper) if self.op.reverse else upper  # the partner's lanes come first
            first = [b.select(after, o, t) for o, t in zip(other, total)]
            second = [b.select(after, t, o) for o, t in zip(other, total)]
            prefix = self.then(_Prefix(other, after), prefix)
            total = self.combine_values(first, second)
            d *= 2
        return prefix, total

    def across_warps(
        self, totals: dict[tuple[Key, int], Values], line_index: dict[Key, ir.Value], lines: int
    ) -> tuple[dict[tuple[Key, int], _Prefix], dict[tuple[Key, int], Values]]:
        """Each warp's totals (per line and chunk) through shared memory: every thread gets the
        warps before its own and the total over all warps, combined in scan order."""
        b, L, wpc = self.b, self.L, self.warps
        sample = next(iter(totals.values()))
        types = [ir.IntType(8) if v.type == I1 else v.type for v in sample]
        reps = 1 + max(r for _, r in totals)
        slots = reps * lines * wpc
        offsets, size = [], 0
        for t in types:
            offsets.append(size)
            size += (_bytes(t) * slots + 15) // 16 * 16
        base = L.smem(size)

        def slot(i: int, line: Key, r: int, warp: ir.Value) -> ir.Value:
            region = b.gep(base, [ir.Constant(I32, offsets[i])], source_etype=ir.IntType(8))
            row = b.add(ir.Constant(I32, r * lines), line_index[line])
            index = b.add(b.mul(row, ir.Constant(I32, wpc)), warp)
            return b.gep(region, [index], source_etype=types[i])

        L.barrier()
        for (line, r), vals in totals.items():
            for i, v in enumerate(vals):
                b.store(b.zext(v, types[i]) if v.type == I1 else v, slot(i, line, r, self.warp_d))
        L.barrier()
        order = range(wpc - 1, -1, -1) if self.op.reverse else range(wpc)
        before: dict[tuple[Key, int], _Prefix] = {}
        whole: dict[tuple[Key, int], Values] = {}
        for (line, r), vals in totals.items():
            prefix, total = _NONE, _NONE
            for w in order:
                got = []
                for i, v in enumerate(vals):
                    x = b.load(slot(i, line, r, ir.Constant(I32, w)), typ=types[i])
                    got.append(b.trunc(x, I1) if v.type == I1 else x)
                precedes = b.icmp_unsigned(
                    ">" if self.op.reverse else "<", ir.Constant(I32, w), self.warp_d
                )
                prefix = self.then(prefix, _Prefix(got, precedes))
                total = self.then(total, _Prefix(got, True))
            before[line, r], whole[line, r] = prefix, total.values
        return before, whole


def _bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


def scan_in_place(L: Lowering, op: O.ScanOp, ins: list[Tile], combine: Combine) -> list[Tile]:
    """The scanned tiles, in their own layout."""
    layout, shape, axis = ins[0].layout, ins[0].shape, op.axis
    dm = layout.dim_maps()[axis]
    n = shape[axis]
    s = _Scanner(L, op, combine, dm, n)
    spt, reps = dm.spt_in(n), max(1, n // dm.tile)
    lines: dict[Key, None] = {}
    for key in L.keys(layout, shape):
        lines[key[:axis] + key[axis + 1 :]] = None
    chunk_order = range(reps - 1, -1, -1) if op.reverse else range(reps)
    elem_order = range(spt - 1, -1, -1) if op.reverse else range(spt)

    def key_of(line: Key, i: int) -> Key:
        return (*line[:axis], i, *line[axis:])

    local: dict[Key, Values] = {}
    totals: dict[tuple[Key, int], Values] = {}
    lane_prefix: dict[tuple[Key, int], _Prefix] = {}
    for line in lines:
        for r in chunk_order:
            acc: Values | None = None
            for e in elem_order:
                k = key_of(line, r * spt + e)
                vals = [t.regs[k] for t in ins]
                acc = vals if acc is None else combine(acc, vals)
                local[k] = acc
            assert acc is not None
            lane_prefix[line, r], totals[line, r] = s.across_lanes(acc)
    if s.warps > 1:
        out_layout: Layout = Slice(layout, axis)
        out_shape = shape[:axis] + shape[axis + 1 :]
        index = {
            line: L.linear(L.coord(out_layout, out_shape, line), out_shape)
            if out_shape
            else ir.Constant(I32, 0)
            for line in lines
        }
        numel = 1
        for d in out_shape:
            numel *= d
        warp_prefix, totals = s.across_warps(totals, index, numel)
    else:
        warp_prefix = {k: _NONE for k in totals}
    regs: list[dict[Key, ir.Value]] = [{} for _ in ins]
    for line in lines:
        carry = _NONE
        for r in chunk_order:
            start = s.then(s.then(carry, warp_prefix[line, r]), lane_prefix[line, r])
            for e in elem_order:
                k = key_of(line, r * spt + e)
                vals = s.then(start, _Prefix(local[k], True)).values
                for i, v in enumerate(vals):
                    regs[i][k] = v
            carry = s.then(carry, _Prefix(totals[line, r], True))
    return [Tile(layout, shape, r) for r in regs]
