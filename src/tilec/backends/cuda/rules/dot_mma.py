"""``tl.dot`` on tensor cores with mma.sync (sm_80+): stage, ldmatrix, mma.

Both operands are written once to swizzled shared memory (16-byte vector stores along the axis
the registers are contiguous in), then every warp loads its fragments with ldmatrix (``.trans``
where a 16-bit operand is stored K-outer) and issues m16n8k{8,16,32} instructions into an
accumulator that stays in the mma layout of mma.py, also across loop iterations. The
instructions are inline PTX (ptxas validates them; LLVM cannot abort on them).
"""

from __future__ import annotations

from llvmlite import ir

from ....ir import ops as O
from ....ir.core import Value
from ....ir.types import TileType
from .. import intrinsics as intr
from .. import wgmma_groups
from ..dot_plans import register_a
from ..lowering import Lowering, Tile
from ..mma import (
    ATOM_ALIGN,
    AccKind,
    Engine,
    MmaKind,
    MmaPlan,
    Staged,
    acc_key,
    staging,
)  # fmt: skip
from ..mma_expr import Expr
from ..mma_fragments import RegisterFragments, SharedFragments
from ..types import F16, F32, I8, I32
from ..wgmma import usable
from . import dot_wgmma


def _store(L: Lowering, t: Tile, s: Staged, base: ir.Value, elem_bytes: int) -> None:
    """Write this thread's registers, in runs of up to 16 contiguous bytes, to ``s``."""
    b = L.b
    dm = t.layout.dim_maps()[s.col_axis]
    vec = max(1, min(dm.spt_in(t.shape[s.col_axis]), 16 // elem_bytes))
    batched = len(t.shape) == 3
    for key, first in t.regs.items():
        if key[s.col_axis] % vec:
            continue
        coords = L.thread_coords(t.layout, t.shape, key)
        row, col = coords[s.row_axis], coords[s.col_axis]
        off = s.at(row, col * elem_bytes) + s.offset
        if batched:
            off = off + coords[0] * s.nbytes
        value = first
        if vec > 1:
            value = ir.Constant(ir.VectorType(first.type, vec), None)
            for e in range(vec):
                k = list(key)
                k[s.col_axis] += e
                value = b.insert_element(value, t.regs[tuple(k)], ir.Constant(I32, e))
        ptr = b.gep(base, [Expr.of(row.b, off).v], source_etype=I8)
        b.store(value, ptr).align = vec * elem_bytes


def _to_tf32(b: ir.IRBuilder, bits: ir.Value) -> ir.Value:
    x = b.bitcast(bits, F32)
    return intr.asm(b, I32, "cvt.rna.tf32.f32 $0, $1;", "=r,f", [x], side_effect=False)


def _split_tf32(b: ir.IRBuilder, bits: ir.Value) -> tuple[ir.Value, ir.Value]:
    """x = big + small, both rounded to tf32 (the 3xTF32 split)."""
    big = _to_tf32(b, bits)
    rest = b.fsub(b.bitcast(bits, F32), b.bitcast(big, F32))
    return big, _to_tf32(b, b.bitcast(rest, I32))


def _mma(plan: MmaPlan, b: ir.IRBuilder, a: list, bb: list, c: list) -> list[ir.Value]:
    kind, acc = plan.kind, plan.acc
    shape = f"m16n8k{kind.k}"
    if acc is AccKind.F16:
        text = f"mma.sync.aligned.{shape}.row.col.f16.f16.f16.f16 {{$0,$1}}, {{$2,$3,$4,$5}}, {{$6,$7}}, {{$8,$9}};"
        ret = ir.LiteralStructType([I32] * 2)
        out = intr.asm(b, ret, text, "=r,=r,r,r,r,r,r,r,r,r", [*a, *bb, *c], side_effect=False)
        return [b.extract_value(out, i) for i in range(2)]
    d = acc.value
    text = (
        f"mma.sync.aligned.{shape}.row.col.{d}.{kind.ptx}.{kind.ptx}.{d} "
        "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};"
    )
    reg = "f" if acc is AccKind.F32 else "r"
    # C is not tied to D: a first product into zeros reads one zero register four times
    # instead of copying it into each output register first
    cons = ",".join([f"={reg}"] * 4 + ["r"] * 6 + [reg] * 4)
    out = intr.asm(b, ir.LiteralStructType([c[0].type] * 4), text, cons, [*a, *bb, *c], False)
    return [b.extract_value(out, i) for i in range(4)]


def lower(L: Lowering, op: O.DotOp, plan: MmaPlan) -> None:
    a_v, b_v, acc_v = op.operands
    assert isinstance(acc_v.type, TileType)
    layout = plan.layout()
    acc = L.tile(acc_v, layout)
    a = None if a_v in L.shared_operands or not register_a(plan) else L.tile(a_v)
    a_operand: RegisterFragments | tuple[Staged, ir.Value]
    if a is not None and a.layout == layout:
        # A's registers are the A fragments as they are (mma_fragments.py); B is staged alone
        (sb, base_b) = _in_shared(L, plan, (b_v,), first=1)[0]
        a_operand = RegisterFragments(L.b, a, batched=plan.batch > 0)
        on_wgmma = plan.engine is Engine.WGMMA
    else:
        (sa, base_a), (sb, base_b) = _in_shared(L, plan, (a_v, b_v))
        a_operand = (sa, base_a)
        on_wgmma = usable(plan, sa, sb)
    if on_wgmma:
        deferred = wgmma_groups.deferred(L, op)
        regs = dot_wgmma.accumulate(L, op.parent, plan, a_operand, (sb, base_b), acc.regs, deferred)
    else:
        fa = a_operand
        if not isinstance(fa, RegisterFragments):
            fa = SharedFragments(L, plan, *fa)
        regs = _accumulate(L, op, plan, fa, SharedFragments(L, plan, sb, base_b), acc)
    L.set(op.result, Tile(layout, acc.shape, regs))


def _in_shared(
    L: Lowering, plan: MmaPlan, operands: tuple[Value, ...], first: int = 0
) -> list[tuple[Staged, ir.Value]]:
    """Where the operands (A and B, or from ``first`` = 1 B alone) are in shared memory
    (layout, base). Operands a pipelined loop copied there (pipeline.py) are read in place: the
    loop's barrier after each stage lands orders those copies before the reads. The others
    are written to the scratch between barriers."""
    direct = [L.shared_operands.get(v) for v in operands]
    out = [(d.staged, d.base) if d is not None else None for d in direct]
    todo = [(i, L.tile(v)) for i, (v, d) in enumerate(zip(operands, direct)) if d is None]
    if todo:
        batches = max(plan.batch, 1)
        offset, placed = 0, []
        align = ATOM_ALIGN if plan.engine is Engine.WGMMA else 128
        for i, t in todo:
            # each operand starts on a 128-byte line, so its swizzle spreads ldmatrix rows
            # over all banks (wgmma: on its swizzle's 1024-byte period)
            s = staging(t.shape, t.layout.order[0], first + i == 0, plan, offset)
            offset = -(-(offset + s.nbytes * batches) // align) * align
            placed.append((i, t, s))
        base = L.smem(offset, align)
        L.barrier()
        for i, t, s in placed:
            _store(L, t, s, base, plan.kind.elem_bytes)
            out[i] = (s, base)
        if plan.engine is Engine.WGMMA:
            L.target.fence_async_shared(L.b)  # the stores, before wgmma reads them (async proxy)
        L.barrier()
    assert all(x is not None for x in out)
    return out  # type: ignore[return-value]


def _accumulate(
    L: Lowering,
    op: O.DotOp,
    plan: MmaPlan,
    fa: SharedFragments | RegisterFragments,
    fb: SharedFragments,
    acc: Tile,
) -> dict:
    if L.in_flight:  # a wgmma group of the previous iteration still writes them
        wgmma_groups.drain(L)
    b = L.b
    regs = dict(acc.regs)
    for batch in range(max(plan.batch, 1)):
        prefix = (batch,) if plan.batch else ()
        for ks in range(plan.k_steps):
            a_frags = [_prepare(plan, b, fa.a(mt, ks, batch)) for mt in range(plan.m_tiles)]
            b_frags = []
            for nt in range(0, plan.n_tiles, 2):
                x4 = nt + 1 < plan.n_tiles
                got = fb.b(nt, ks, batch, x4)
                b_frags += [_prepare(plan, b, got[:2]), _prepare(plan, b, got[2:])][: 1 + x4]
            for mt in range(plan.m_tiles):
                for nt in range(plan.n_tiles):
                    keys = [prefix + acc_key(mt, nt, i) for i in range(4)]
                    _issue(plan, b, a_frags[mt], b_frags[nt], keys, regs)
            # the tensor cores have the first k step's work: now the loop's next copies
            # (pipeline_lowering.top_of_body), so they do not delay the first ldmatrix
            L.release_copies(op.parent)
    return regs


def _prepare(plan: MmaPlan, b: ir.IRBuilder, frag: list[ir.Value]) -> list[list[ir.Value]]:
    """The operand words of each product: as loaded; rounded to tf32; or tf32x3's (big, small)."""
    if plan.kind is not MmaKind.TF32:
        return [frag]
    if plan.passes == 1:
        return [[_to_tf32(b, x) for x in frag]]
    big, small = zip(*(_split_tf32(b, x) for x in frag))
    return [list(big), list(small)]


def _issue(plan: MmaPlan, b: ir.IRBuilder, a: list, bb: list, keys: list, regs: dict) -> None:
    """One m16n8 tile: c += a @ b (small*big + big*small + big*big for tf32x3)."""
    if plan.acc is AccKind.F16:
        c = [_pack(b, regs[keys[0]], regs[keys[1]]), _pack(b, regs[keys[2]], regs[keys[3]])]
        d = _mma(plan, b, a[0], bb[0], c)
        for i, word in enumerate(d):
            pair = b.bitcast(word, ir.VectorType(F16, 2))
            regs[keys[2 * i]] = b.extract_element(pair, ir.Constant(I32, 0))
            regs[keys[2 * i + 1]] = b.extract_element(pair, ir.Constant(I32, 1))
        return
    c = [regs[k] for k in keys]
    if len(a) == 2:
        c = _mma(plan, b, a[1], bb[0], c)
        c = _mma(plan, b, a[0], bb[1], c)
    c = _mma(plan, b, a[0], bb[0], c)
    for k, v in zip(keys, c):
        regs[k] = v


def _pack(b: ir.IRBuilder, lo: ir.Value, hi: ir.Value) -> ir.Value:
    pair = ir.Constant(ir.VectorType(F16, 2), None)
    pair = b.insert_element(pair, lo, ir.Constant(I32, 0))
    pair = b.insert_element(pair, hi, ir.Constant(I32, 1))
    return b.bitcast(pair, I32)
