"""``tl.dot`` with FMAs: both operands are staged in shared memory once, then every thread
accumulates its own accumulator elements over K, reading the rows and columns it needs.

Exact for every dtype (fp32 inputs compute in full fp32, more precise than tf32; f16/bf16 are
widened to the accumulator type; integers multiply-add in the accumulator's width). Tensor cores
(mma.sync/wgmma) are a later issue.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Op
from ...ir.types import ScalarType, TileType, element_of
from . import intrinsics as intr
from . import scalar_ops
from .lowering import Lowering, Rule, Tile
from .types import I8, I32


def _dot(L: Lowering, op: Op) -> None:
    assert isinstance(op, O.DotOp) and isinstance(op.result.type, TileType)
    a_v, b_v, acc_v = op.operands
    layout = L.want(op.result)
    acc = L.tile(acc_v, layout)
    a, b = L.tile(a_v), L.tile(b_v)
    shape = acc.shape
    k_dim = a.shape[-1]
    in_elem, out_elem = element_of(a_v.type), element_of(acc_v.type)
    assert isinstance(in_elem, ScalarType) and isinstance(out_elem, ScalarType)
    a_base, b_base = _stage(L, a, b)
    bld = L.b
    regs = {}
    rows: dict[tuple[int, ...], list[ir.Value]] = {}
    cols: dict[tuple[int, ...], list[ir.Value]] = {}
    for key, start in acc.regs.items():
        coord = L.coord(layout, shape, key)
        rk, ck = key[:-1], key[:-2] + key[-1:]
        if rk not in rows:
            rows[rk] = _line(L, a_base, a, [*coord[:-1]], k_dim, in_elem, out_elem, row=True)
        if ck not in cols:
            cols[ck] = _line(L, b_base, b, [*coord[:-2], coord[-1]], k_dim, in_elem, out_elem, row=False)
        s = start
        for x, y in zip(rows[rk], cols[ck]):
            if out_elem.is_floating():
                s = intr.llvm_intrinsic(bld, "fma", [x, y, s])
            else:
                s = bld.add(bld.mul(x, y), s)
        regs[key] = s
    L.set(op.result, Tile(layout, shape, regs))


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


def _line(L: Lowering, base: ir.Value, t: Tile, fixed: list[ir.Value], k_dim: int,
          in_elem: ScalarType, out_elem: ScalarType, row: bool) -> list[ir.Value]:
    """A row of A (``fixed`` = batch, m) or a column of B (``fixed`` = batch, n), widened."""
    elem_ty = next(iter(t.regs.values())).type
    out = []
    for k in range(k_dim):
        kc = ir.Constant(I32, k)
        coords = [*fixed, kc] if row else [*fixed[:-1], kc, fixed[-1]]
        idx = L.linear(coords, t.shape)
        x = L.b.load(L.b.gep(base, [idx], source_etype=elem_ty), typ=elem_ty)
        out.append(scalar_ops.cast(L.b, x, in_elem, out_elem))
    return out


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
