"""Reductions and scans.

A reduction combines a thread's own registers, then lanes with butterfly shuffles, then warps
through shared memory; the result has the slice layout (every thread holds its slice's values).
A scan stays in the operand's layout (scan.py: within a thread, across lanes, across warps).
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Block, Op
from ....ir.types import TileType, float32, float64
from ...llvm import intrinsics as llvm_intr
from .. import scan
from ..layout import DimMap, Layout, Slice
from ..lowering import Key, Lowering, Rule, Tile
from ..types import I8, I32


def combine(
    L: Lowering, block: Block, acc: list[ir.Value], new: list[ir.Value], reduction: bool = False
) -> list[ir.Value]:
    """Lower the combine region once on scalar values and return what it yields."""
    minmax = _plain_minmax(block) if reduction else None
    if minmax is not None:
        return [llvm_intr.call(L.b, minmax, [acc[0], new[0]])]
    for arg, v in zip(block.args, [*acc, *new]):
        L.set(arg, v)
    L.block(block)
    term = block.terminator
    assert term is not None
    return [L.scalar(v) for v in term.operands]


def _plain_minmax(block: Block) -> str | None:
    """``minnum``/``maxnum`` when the region is ``tl.min``/``tl.max`` of fp32 or fp64 without
    propagate_nan: PTX min/max.f32 (one instruction, NaN ignored as documented) instead of the
    compares and selects that also order -0.0 below +0.0, which a reduction does not promise."""
    ops = [op for op in block.ops if not op.is_terminator]
    if len(ops) != 1 or not isinstance(ops[0], O.BinaryOp) or len(block.args) != 2:
        return None
    op, term = ops[0], block.terminator
    if op.kind not in (O.BinaryKind.MIN, O.BinaryKind.MAX) or op.propagate_nan:
        return None
    if term is None or list(term.operands) != [op.results[0]]:
        return None
    if list(op.operands) != block.args or op.results[0].type not in (float32, float64):
        return None
    return "minnum" if op.kind is O.BinaryKind.MIN else "maxnum"


def _reduce(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ReduceOp)
    axis = op.axis
    first = L.tile(op.operands[0])
    layout, shape = first.layout, first.shape
    ins = [L.tile(v, layout) for v in op.operands]
    acc = _within_thread(L, op, ins, layout, shape)
    dm = layout.dim_maps()[axis]
    n = shape[axis]
    lanes = dm.distinct_lanes(n)
    step = 1
    while step < lanes:
        mask = dm.lane_stride * step
        for key, vals in acc.items():
            acc[key] = combine(
                L, op.combine, vals, [L.target.shuffle_xor(L.b, v, mask) for v in vals], True
            )
        step *= 2
    out_layout: Layout = Slice(layout, axis)
    out_shape = shape[:axis] + shape[axis + 1 :]
    if dm.distinct_warps(n) > 1:
        acc = _across_warps(L, op, acc, dm, n, out_layout, out_shape)
    for i, result in enumerate(op.results):
        if isinstance(result.type, TileType):
            L.set(result, Tile(out_layout, out_shape, {k: v[i] for k, v in acc.items()}))
        else:
            L.set(result, acc[()][i])


def _within_thread(
    L: Lowering, op: O.ReduceOp, ins: list[Tile], layout: Layout, shape: tuple[int, ...]
) -> dict[Key, list[ir.Value]]:
    axis = op.axis
    acc: dict[Key, list[ir.Value]] = {}
    for key in sorted(L.keys(layout, shape), key=lambda k: (k[axis], k)):
        out = key[:axis] + key[axis + 1 :]
        vals = [t.regs[key] for t in ins]
        acc[out] = combine(L, op.combine, acc[out], vals, True) if out in acc else vals
    return acc


@dataclass(frozen=True)
class _Partials:
    """Where each operand's per-warp partial results live in shared memory."""

    base: ir.Value
    types: tuple[ir.Type, ...]  # storage types (i1 kept as i8)
    offsets: tuple[int, ...]  # byte offset of each operand's [warps][elements] array

    def slot(self, b: ir.IRBuilder, operand: int, index: ir.Value) -> ir.Value:
        region = b.gep(self.base, [ir.Constant(I32, self.offsets[operand])], source_etype=I8)
        return b.gep(region, [index], source_etype=self.types[operand])


def _partials(L: Lowering, sample: list[ir.Value], warps: int, numel: int) -> _Partials:
    types = tuple(I8 if v.type == ir.IntType(1) else v.type for v in sample)
    offsets, total = [], 0
    for t in types:
        offsets.append(total)
        total += (_bytes(t) * warps * numel + 15) // 16 * 16
    return _Partials(L.smem(total), types, tuple(offsets))


def _across_warps(
    L: Lowering,
    op: O.ReduceOp,
    acc: dict[Key, list[ir.Value]],
    dm: DimMap,
    n: int,
    out_layout: Layout,
    out_shape: tuple[int, ...],
) -> dict[Key, list[ir.Value]]:
    """Each warp writes its lane-reduced partials to shared memory; every thread then combines
    the partials of all warps along the reduced dimension, in warp order."""
    b = L.b
    nw = dm.distinct_warps(n)
    numel = 1
    for d in out_shape:
        numel *= d
    mem = _partials(L, next(iter(acc.values())), nw, numel)
    warp_d = b.and_(b.udiv(L.warp, ir.Constant(I32, dm.warp_stride)), ir.Constant(I32, nw - 1))
    L.barrier()
    index: dict[Key, ir.Value] = {}
    for key, vals in acc.items():
        coord = L.coord(out_layout, out_shape, key)
        index[key] = L.linear(coord, out_shape) if out_shape else ir.Constant(I32, 0)
        slot = b.add(b.mul(warp_d, ir.Constant(I32, numel)), index[key])
        for i, v in enumerate(vals):
            b.store(b.zext(v, I8) if mem.types[i] is not v.type else v, mem.slot(b, i, slot))
    L.barrier()
    out: dict[Key, list[ir.Value]] = {}
    for key, vals in acc.items():
        parts: list[ir.Value] | None = None
        for w in range(nw):
            slot = b.add(ir.Constant(I32, w * numel), index[key])
            got = []
            for i, v in enumerate(vals):
                x = b.load(mem.slot(b, i, slot), typ=mem.types[i])
                got.append(b.trunc(x, v.type) if mem.types[i] is not v.type else x)
            parts = got if parts is None else combine(L, op.combine, parts, got, True)
        assert parts is not None
        out[key] = parts
    return out


def _bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


def _scan(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.ScanOp)
    layout = L.tile(op.operands[0]).layout
    ins = [L.tile(v, layout) for v in op.operands]
    done = scan.scan_in_place(L, op, ins, lambda a, n: combine(L, op.combine, a, n))
    for result, tile in zip(op.results, done):
        L.set(result, tile)


RULES: dict[type, Rule] = {O.ReduceOp: _reduce, O.ScanOp: _scan}
