"""``tl.dot`` with FMAs: both operands are staged in shared memory once, then every thread
accumulates its own accumulator elements over K, reading the rows and columns it needs.

Exact for every dtype (fp32 inputs compute in full fp32, more precise than tf32; f16/bf16 are
widened to the accumulator type; integers multiply-add in the accumulator's width). On sm_80 and
newer, dots with a tensor-core plan (dot_plans.py) run there instead (dot_mma.py); this path
keeps ieee fp32, fp64, bf16 accumulators and the shapes mma.sync cannot take.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Op
from ....ir.types import ScalarType, TileType, element_of
from ...llvm import intrinsics as llvm_intr
from .. import scalar_ops
from ..lowering import Lowering, Rule, Tile
from ..types import I8, I32
from . import dot_mma


def _dot(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.DotOp) and isinstance(op.result.type, TileType)
    plan = L.dot_plans(op)
    if plan is not None:
        dot_mma.lower(L, op, plan)
        return
    a_v, b_v, acc_v = op.operands
    layout = L.want(op.result)
    acc = L.tile(acc_v, layout)
    a, b = L.tile(a_v), L.tile(b_v)
    in_elem, out_elem = element_of(a_v.type), element_of(acc_v.type)
    assert isinstance(in_elem, ScalarType) and isinstance(out_elem, ScalarType)
    a_base, b_base = _stage(L, a, b)
    rows: dict[tuple[int, ...], ir.Value] = {}
    cols: dict[tuple[int, ...], ir.Value] = {}
    zero = ir.Constant(I32, 0)
    for key in acc.regs:
        coord = L.coord(layout, acc.shape, key)
        rows.setdefault(key[:-1], L.linear([*coord[:-1], zero], a.shape))
        cols.setdefault(key[:-2] + key[-1:], L.linear([*coord[:-2], zero, coord[-1]], b.shape))
    elem_ty = next(iter(a.regs.values())).type
    operands = _Operands(a_base, b_base, elem_ty, in_elem, out_elem, b.shape[-1])
    regs = _k_loop(L, acc, rows, cols, operands, a.shape[-1])
    L.set(op.result, Tile(layout, acc.shape, regs))


@dataclass(frozen=True)
class _Operands:
    """The staged operands: shared-memory bases, element types and the B row length."""

    a_base: ir.Value
    b_base: ir.Value
    elem_ty: ir.Type
    in_elem: ScalarType
    out_elem: ScalarType
    n_dim: int

    def fetch(self, b: ir.IRBuilder, base: ir.Value, idx: ir.Value) -> ir.Value:
        x = b.load(b.gep(base, [idx], source_etype=self.elem_ty), typ=self.elem_ty)
        return scalar_ops.cast(b, x, self.in_elem, self.out_elem)


def _k_loop(
    L: Lowering, acc: Tile, rows: dict, cols: dict, ops: _Operands, k_dim: int
) -> dict[tuple[int, ...], ir.Value]:
    """One LLVM loop over K: per step, load this thread's A column and B row entries from shared
    memory and update every accumulator register (registers stay at acc + rows + columns)."""
    b = L.b
    entry = b.block
    body = b.append_basic_block("dot.k")
    done = b.append_basic_block("dot.done")
    b.branch(body)
    b.position_at_end(body)
    k = b.phi(I32)
    k.add_incoming(ir.Constant(I32, 0), entry)
    phis = {key: b.phi(v.type) for key, v in acc.regs.items()}
    for key, v in acc.regs.items():
        phis[key].add_incoming(v, entry)
    kn = b.mul(k, ir.Constant(I32, ops.n_dim))
    a_vals = {rk: ops.fetch(b, ops.a_base, b.add(idx, k)) for rk, idx in rows.items()}
    b_vals = {ck: ops.fetch(b, ops.b_base, b.add(idx, kn)) for ck, idx in cols.items()}
    new = {}
    for key, s in phis.items():
        x, y = a_vals[key[:-1]], b_vals[key[:-2] + key[-1:]]
        if ops.out_elem.is_floating():
            new[key] = llvm_intr.call(b, "fma", [x, y, s])
        else:
            new[key] = b.add(b.mul(x, y), s)
    k_next = b.add(k, ir.Constant(I32, 1))
    k.add_incoming(k_next, body)
    for key, v in new.items():
        phis[key].add_incoming(v, body)
    b.cbranch(b.icmp_unsigned("<", k_next, ir.Constant(I32, k_dim)), body, done)
    b.position_at_end(done)
    return dict(new)


def _stage(L: Lowering, a: Tile, b: Tile) -> tuple[ir.Value, ir.Value]:
    """Write both operands to shared memory (row-major), returning their typed bases."""
    elem_ty = next(iter(a.regs.values())).type
    size = _bytes(elem_ty)
    na, nb = _numel(a.shape), _numel(b.shape)
    a_bytes = (na * size + 15) // 16 * 16
    base = L.smem(a_bytes + nb * size)
    L.barrier()
    b_base = L.b.gep(base, [ir.Constant(I32, a_bytes)], source_etype=I8)
    for t, dst in ((a, base), (b, b_base)):
        for key, reg in t.regs.items():
            idx = L.linear(L.coord(t.layout, t.shape, key), t.shape)
            L.b.store(reg, L.b.gep(dst, [idx], source_etype=elem_ty))
    L.barrier()
    return base, b_base


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


RULES: dict[type, Rule] = {O.DotOp: _dot}
