"""Emitting a pipelined loop's copies, waits, barriers and stage-buffer reads (pipeline.py plans
them and states the schedules and the invariants that make them correct).

Each load's stage buffers are ``stages`` slots. A private slot holds ``groups`` vector groups,
each one chunk of ``nbytes`` per thread, consecutive threads in consecutive chunks
(conflict-free for a warp). A dot operand's slot holds the operand tile in the dot's swizzled
layout (mma.staging): each thread copies its vectors to where the dot's ldmatrix reads them.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir.core import Value
from ...ir.types import PointerType, TileType, element_of
from . import cp_async
from .layout import Layout
from .lowering import Lowered, Lowering, Tile
from .mma import SharedOperand
from .mma_expr import Expr
from .pipeline import LoopPipeline, StagedLoad, threads
from .tile import Key
from .types import I8, I32, I64, memory_type
from .vector_access import vector_groups


def prologue(
    L: Lowering,
    p: LoopPipeline,
    lb: ir.Value,
    ub: ir.Value,
    step: ir.Value,
    inits: list[Lowered],
    signed: bool,
) -> None:
    """Start the copies of iterations 0 .. S-2 (into slots 0 .. S-2), one group each, after a
    barrier: the slots may overlap scratch that another warp still reads (Lowering.smem)."""
    L.barrier()
    base = dict(zip(p.loop.body.args[1:], inits))
    for d in range(p.stages - 1):
        issue(L, p, lb, step, ub, signed, base, d, ir.Constant(I32, d))


def top_of_body(
    L: Lowering,
    p: LoopPipeline,
    iv: ir.Value,
    ub: ir.Value,
    step: ir.Value,
    signed: bool,
    carried: list[Lowered],
    slot: ir.Value,
) -> None:
    """Start iteration k+S-1's copies and wait until iteration k's have landed: in that order
    for private slots. With dot operands: wait, publish the stage with a barrier, and hold the
    copies back until the body's first dot has issued its first k step (Lowering.
    release_copies; the body's end releases them otherwise): the slot they fill is no longer
    read by anyone, and the tensor cores need not wait for the copies' address arithmetic."""
    s = p.stages
    ahead = L.b.select(
        L.b.icmp_unsigned("==", slot, ir.Constant(I32, 0)),
        ir.Constant(I32, s - 1),
        L.b.sub(slot, ir.Constant(I32, 1)),
    )  # (k + S - 1) mod S
    base = dict(zip(p.loop.body.args[1:], carried))
    if not p.synchronized:
        issue(L, p, iv, step, ub, signed, base, s - 1, ahead)
        cp_async.wait_group(L.b, s - 1)
        return
    cp_async.wait_group(L.b, s - 2)
    if any(staged.operand is not None and staged.operand.atom for staged in p.loads):
        # the copies landed; wgmma reads them through the async proxy
        L.target.fence_async_shared(L.b)
    L.barrier()
    L.held_copies[p.loop.body] = lambda: issue(L, p, iv, step, ub, signed, base, s - 1, ahead)


def next_slot(b: ir.IRBuilder, p: LoopPipeline, slot: ir.Value) -> ir.Value:
    nxt = b.add(slot, ir.Constant(I32, 1))
    at_end = b.icmp_unsigned("==", nxt, ir.Constant(I32, p.stages))
    return b.select(at_end, ir.Constant(I32, 0), nxt)


def issue(
    L: Lowering,
    p: LoopPipeline,
    iv: ir.Value,
    step: ir.Value,
    ub: ir.Value,
    signed: bool,
    carried: dict[Value, Lowered],
    distance: int,
    slot: ir.Value,
) -> None:
    """Copy iteration (iv's iteration + distance) into ``slot`` of every staged load and commit
    one group. The body ops computing addresses and masks are lowered for that iteration into a
    scratch environment that is discarded afterwards (what the body lowered of them before,
    when the copies come in its middle, is kept)."""
    b = L.b
    loop = p.loop
    env = L.env
    ops = (*p.invariant_ops, *p.variant_ops)
    touched = [*loop.body.args, *(r for op in ops for r in op.results)]
    saved = {v: env[v] for v in touched if v in env}
    for op in p.invariant_ops:
        L.rules[type(op)](L, op)
    env[loop.induction_var] = b.add(iv, b.mul(step, ir.Constant(iv.type, distance)))
    for arg in loop.body.args[1:]:
        if arg in carried:
            env[arg] = carried[arg]
    for arg, inc in p.steps:
        env[arg] = _advance(L, arg, carried[arg], inc, distance)
    for op in p.variant_ops:
        L.rules[type(op)](L, op)
    live = _in_range(b, iv, step, distance, ub, signed)
    for staged in p.loads:
        _copy(L, p, staged, slot, live)
    cp_async.commit_group(b)
    for v in touched:
        env.pop(v, None)
    env.update(saved)


def _in_range(
    b: ir.IRBuilder, iv: ir.Value, step: ir.Value, distance: int, ub: ir.Value, signed: bool
) -> ir.Value:
    """``iv + distance*step < ub`` without wrap-around (computed in 64 bits)."""
    wide = iv.type if iv.type.width >= 64 else I64
    ext = b.sext if signed else b.zext

    def widen(x: ir.Value) -> ir.Value:
        return x if x.type == wide else ext(x, wide)

    ahead = b.add(widen(iv), b.mul(widen(step), ir.Constant(wide, distance)))
    less = b.icmp_signed if signed else b.icmp_unsigned
    return less("<", ahead, widen(ub))


def _advance(L: Lowering, arg: Value, base: Lowered, inc: Value, distance: int) -> Lowered:
    """``arg`` ``distance`` iterations after ``base``: base + distance * inc."""
    if distance == 0:
        return base
    b = L.b
    layout = base.layout if isinstance(base, Tile) else None
    step = L.value(inc, layout)
    elem = element_of(arg.type)

    def one(x: ir.Value, s: ir.Value) -> ir.Value:
        if isinstance(elem, PointerType):
            wide = b.sext(s, I64) if s.type.width < 64 else s
            scaled = b.mul(wide, ir.Constant(I64, distance))
            return b.gep(x, [scaled], source_etype=memory_type(elem.element))
        return b.add(x, b.mul(s, ir.Constant(s.type, distance)))

    if isinstance(base, Tile):
        return Tile(
            base.layout,
            base.shape,
            {
                k: one(r, step.regs[k] if isinstance(step, Tile) else step)
                for k, r in base.regs.items()
            },
        )
    assert not isinstance(step, Tile)
    return one(base, step)


def _chunk(L: Lowering, staged: StagedLoad, slot: ir.Value, group: int) -> ir.Value:
    """This thread's chunk of vector group ``group`` in ``slot``: consecutive threads own
    consecutive chunks, so a warp's copies and reads are conflict-free."""
    b = L.b
    fixed = staged.offset + group * threads(L) * staged.nbytes
    where = b.add(b.mul(slot, ir.Constant(I32, staged.stage_bytes)), ir.Constant(I32, fixed))
    where = b.add(where, L.thread_bytes(staged.nbytes))
    return b.gep(L.shared_base(), [where], source_etype=I8)


def slot_base(L: Lowering, staged: StagedLoad, slot: ir.Value) -> ir.Value:
    """The start of ``slot`` of a dot operand's stage buffers."""
    b = L.b
    where = b.add(
        b.mul(slot, ir.Constant(I32, staged.stage_bytes)), ir.Constant(I32, staged.offset)
    )
    return b.gep(L.shared_base(), [where], source_etype=I8)


def _operand_chunk(L: Lowering, staged: StagedLoad, base: ir.Value, key: Key) -> ir.Value:
    """Where the vector whose first register is ``key`` goes in a dot operand's slot at
    ``base``: the element's (row, column) in the dot's swizzled layout. The offset depends on
    the thread only (LLVM hoists it out of the loop)."""
    op, s = staged.op, staged.operand
    assert s is not None and isinstance(op.result.type, TileType)
    layout, shape = L.want(op.result), op.result.type.shape
    coords = L.coord(layout, shape, key)
    row, col = Expr(L.b, coords[s.row_axis]), Expr(L.b, coords[s.col_axis])
    elem_bytes = staged.nbytes // staged.vw
    off = s.at(row, col * elem_bytes)
    return L.b.gep(base, [Expr.of(L.b, off).v], source_etype=I8)


def _copy(L: Lowering, p: LoopPipeline, staged: StagedLoad, slot: ir.Value, live: ir.Value) -> None:
    op = staged.op
    assert isinstance(op.result.type, TileType)
    layout, shape = L.want(op.result), op.result.type.shape
    groups = vector_groups(layout, shape, staged.vw)
    ptrs = L.pointers(op.ptr, layout, [g[0] for g in groups])
    mask = L.value(op.mask, layout) if op.mask is not None else None
    base = slot_base(L, staged, slot) if staged.operand is not None else None
    preds: dict[Key, ir.Value] = {}
    same = _same_mask(L, op.mask, layout, shape, [g[0] for g in groups]) if mask else {}
    for g, group in enumerate(groups):
        pred = live
        if isinstance(mask, Tile):
            rep = same.get(group[0], group[0])
            if rep not in preds:
                preds[rep] = L.b.and_(live, mask.regs[rep])
            pred = preds[rep]
        elif mask is not None:
            pred = L.b.and_(pred, mask)
        dst = (
            _chunk(L, staged, slot, g)
            if base is None
            else _operand_chunk(L, staged, base, group[0])
        )
        cp_async.copy(L.b, dst, ptrs.regs[group[0]], staged.nbytes, pred)


def _same_mask(
    L: Lowering, mask: Value | None, layout: Layout, shape: tuple[int, ...], keys: list[Key]
) -> dict[Key, Key]:
    """For each register of ``keys``, an earlier one whose mask element is equal in every
    thread: the mask is constant over aligned blocks of ``constancy`` elements along each
    dimension (axis_info), and both elements fall in the same block whatever the thread (the
    rows w and w + 8 of a K mask that is constant over 16 rows). One predicate then serves
    both copies, as in Triton."""
    if mask is None or not isinstance(mask.type, TileType):
        return {}
    constancy = L.axis[mask].constancy
    first: dict[tuple, Key] = {}
    out: dict[Key, Key] = {}
    for key in keys:
        blocks = []
        for dm, n, i, c in zip(layout.dim_maps(), shape, key, constancy):
            off = dm.offset(i, n)
            if dm.distinct_threads(n) == 1:
                blocks.append(((off % n) // c,))
            else:
                threads = range(dm.tpw * dm.wpc)
                blocks.append(tuple(((t * dm.spt + off) % n) // c for t in threads))
        out[key] = first.setdefault(tuple(blocks), key)
    return out


def read(L: Lowering, staged: StagedLoad, slot: ir.Value) -> None:
    """Lower ``staged.op`` as a read of this iteration's slot; masked-off lanes take ``other``.
    A dot operand stays in its slot, where the dot finds it (Lowering.shared_operands)."""
    op = staged.op
    b = L.b
    if staged.operand is not None:
        L.shared_operands[op.result] = SharedOperand(staged.operand, slot_base(L, staged, slot))
        return
    assert isinstance(op.result.type, TileType)
    elem = element_of(op.result.type)
    mem_ty = memory_type(elem)  # type: ignore[arg-type]
    layout, shape = L.want(op.result), op.result.type.shape
    mask = L.value(op.mask, layout) if op.mask is not None else None
    other = L.value(op.other, layout) if op.other is not None and mask is not None else None
    vec_ty = ir.VectorType(mem_ty, staged.vw)
    regs = {}
    for g, group in enumerate(vector_groups(layout, shape, staged.vw)):
        got = b.load(_chunk(L, staged, slot, g), typ=vec_ty, align=staged.nbytes)
        for i, key in enumerate(group):
            val = b.extract_element(got, ir.Constant(I32, i))
            if other is not None:
                m = mask.regs[key] if isinstance(mask, Tile) else mask
                alt = other.regs[key] if isinstance(other, Tile) else other
                val = b.select(m, val, alt)
            regs[key] = val
    L.set(op.result, Tile(layout, shape, regs))
