"""Software pipelining of loop loads: multi-buffered shared memory filled by cp.async.

A ``for`` loop with S = ``num_stages`` >= 2 (``tl.range(..., num_stages=S)``) on sm_80+ keeps
the loads of iterations k+1 .. k+S-1 in flight while iteration k computes. A load is pipelined
when it sits directly in the loop body, loads a tile of 1- to 8-byte numbers with the default,
``.ca`` or ``.cg`` cache policy, moves 4, 8 or 16 bytes per vector access, and its pointer and
mask are pure functions of the induction variable, loop invariants and loop-carried values that
advance by an invariant step (``p += inc``): then they can be computed ahead for iteration k+d.

Schedule (slots are S buffers per load, iteration k uses slot k mod S):
  prologue       for d in 0..S-2: copy iteration d into slot d; commit a group
  top of body k  copy iteration k+S-1 into slot (k+S-1) mod S; commit; wait_group(S-1)
  the load op    read slot k mod S; masked-off lanes take ``other`` (select with the mask of k)
  after the loop wait_all
Copies for iterations past the end are issued with source size 0 (they read nothing and write
zeros) so that every thread commits exactly one group per iteration.

Invariants that make this correct without any bar.sync:
- Each thread copies into, and later reads, only its own 4/8/16-byte chunks (chunk address =
  slot, vector group and thread id): the buffers are thread-private, so the only ordering needed
  is within one thread. ``cp.async.wait_group N`` makes every copy of the thread's groups older
  than its N most recent complete and visible to the thread; at the top of iteration k the
  thread has committed S-1 prologue groups plus k+1 body groups, so wait_group(S-1) completes
  groups 0..k, and group k holds iteration k's data. Groups committed by other code in between
  only make the wait stricter, never looser.
- The slot written at the top of iteration k ((k-1) mod S) was last read by this thread in
  iteration k-1, earlier in program order; ptxas orders a thread's cp.async after its earlier
  shared loads of the same address.
- Pending zero-fill copies of iterations past the end are drained by wait_all at the loop exit,
  so a re-entered loop (an outer loop around it) never sees a stale copy land on a new one.
- The buffers occupy the start of dynamic shared memory, below the layout-conversion scratch
  (Lowering.reserved), so conversions and reductions inside the loop never touch them.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ...ir import ops as O
from ...ir.core import Op, Value
from ...ir.types import PointerType, ScalarType, TileType, element_of
from . import cp_async
from .layout import WARP_SIZE
from .lowering import Lowered, Lowering, Tile
from .rules_memory import _groups as vector_groups
from .rules_memory import vector_width
from .types import I8, I32, I64, memory_type

# the most shared memory the stage buffers of one kernel may take (stages are dropped until the
# buffers fit): the rest stays for layout conversions and for more than one block per SM
BUDGET = 96 * 1024

_PURE = (
    O.BinaryOp, O.CompareOp, O.SelectOp, O.CastOp, O.BitcastOp, O.ConstantOp, O.ProgramIdOp,
    O.MakeRangeOp, O.SplatOp, O.BroadcastOp, O.ExpandDimsOp, O.ReshapeOp, O.AddPtrOp, O.HintOp,
)  # fmt: skip
_CACHES = ("", ".ca", ".cg")


@dataclass(frozen=True, eq=False)
class StagedLoad:
    op: O.LoadOp
    vw: int  # elements per copy
    nbytes: int  # bytes per copy: 4, 8 or 16
    groups: int  # copies per thread per stage
    offset: int  # byte offset of slot 0 in shared memory
    stage_bytes: int  # bytes of one slot (all threads)


@dataclass(frozen=True, eq=False)
class LoopPipeline:
    loop: O.ForOp
    stages: int
    loads: tuple[StagedLoad, ...]
    invariant_ops: tuple[Op, ...]  # body ops the copies need that do not change per iteration
    variant_ops: tuple[Op, ...]  # body ops the copies need, in body order, computed for k+d
    steps: tuple[tuple[Value, Value], ...]  # (loop-carried arg, its invariant increment)


def plan(L: Lowering, func: O.FuncOp) -> dict[Op, LoopPipeline]:
    """The loops of ``func`` to pipeline; reserves their buffers at the start of shared memory."""
    out: dict[Op, LoopPipeline] = {}
    if L.arch < cp_async.MIN_ARCH:
        return out  # no cp.async before sm_80: plain loads
    loops = [op for op in func.walk() if isinstance(op, O.ForOp)]
    reserved = 0
    for loop in loops:
        got = _plan_loop(L, loop, reserved)
        if got is not None:
            out[loop] = got
            reserved += got.stages * sum(s.stage_bytes for s in got.loads)
    L.reserve_shared(reserved)
    return out


def _plan_loop(L: Lowering, loop: O.ForOp, start: int) -> LoopPipeline | None:
    stages = loop.num_stages or 1
    if stages < 2:
        return None
    steps = _steps(loop)
    candidates = []
    for op in loop.body.ops:
        if isinstance(op, O.LoadOp):
            shape = _eligible(L, loop, op, steps)
            if shape is not None:
                candidates.append(shape)
    if not candidates:
        return None
    per_stage = sum(bytes_ for _, _, _, bytes_ in candidates)
    while stages >= 2 and start + stages * per_stage > BUDGET:
        stages -= 1
    if stages < 2:
        return None
    loads, offset = [], start
    for op, vw, nbytes, stage_bytes in candidates:
        loads.append(StagedLoad(op, vw, nbytes, stage_bytes // (nbytes * _threads(L)), offset,
                                stage_bytes))
        offset += stages * stage_bytes
    needed = _deps(loop, [v for s in loads for v in _roots(s.op)] + [i for _, i in steps])
    assert needed is not None
    ops, _ = needed
    variant = _variant(loop, ops)
    used = {a for s in loads for a in _deps_args(loop, _roots(s.op))}
    return LoopPipeline(
        loop,
        stages,
        tuple(loads),
        tuple(o for o in ops if o not in variant),
        tuple(o for o in ops if o in variant),
        tuple((a, i) for a, i in steps if a in used),
    )


def _threads(L: Lowering) -> int:
    return L.num_warps * WARP_SIZE


def _roots(op: O.LoadOp) -> list[Value]:
    return [op.ptr] + ([op.mask] if op.mask is not None else [])


def _eligible(
    L: Lowering, loop: O.ForOp, op: O.LoadOp, steps: list[tuple[Value, Value]]
) -> tuple[O.LoadOp, int, int, int] | None:
    """(op, vector width, bytes per copy, bytes per slot) when ``op`` can be pipelined."""
    if not isinstance(op.result.type, TileType) or op.volatile or op.cache not in _CACHES:
        return None
    pointee = element_of(op.ptr.type)
    if not isinstance(pointee, PointerType):
        return None
    elem = pointee.element
    if not isinstance(elem, ScalarType) or elem.bits not in (8, 16, 32, 64):
        return None
    deps = _deps(loop, _roots(op))
    if deps is None:
        return None
    advancing = {a for a, _ in steps}
    if any(a is not loop.induction_var and a not in advancing for a in deps[1]):
        return None
    layout, shape = L.want(op.result), op.result.type.shape
    vw = vector_width(L, op.ptr, op.mask, layout, shape)
    nbytes = vw * elem.bits // 8
    if nbytes not in cp_async.SIZES:
        return None
    count = len(vector_groups(L, layout, shape, vw))
    return op, vw, nbytes, count * nbytes * _threads(L)


def _deps(loop: O.ForOp, roots: list[Value]) -> tuple[list[Op], set[Value]] | None:
    """The body ops computing ``roots`` (in body order) and the body arguments they read; None
    when one of them is not a pure op (a load, a call into a region...)."""
    body = loop.body
    ops: set[Op] = set()
    args: set[Value] = set()
    stack = list(roots)
    while stack:
        v = stack.pop()
        if v.owner is body:
            args.add(v)
            continue
        op = v.defining_op
        if op is None or op.parent is not body or op in ops:
            continue
        if not isinstance(op, _PURE) or op.regions:
            return None
        ops.add(op)
        stack.extend(op.operands)
    return [o for o in body.ops if o in ops], args


def _deps_args(loop: O.ForOp, roots: list[Value]) -> set[Value]:
    got = _deps(loop, roots)
    return got[1] if got is not None else set()


def _variant(loop: O.ForOp, ops: list[Op]) -> set[Op]:
    """The ops among ``ops`` (body order) whose value depends on the iteration."""
    changing: set[Value] = set(loop.body.args)
    out: set[Op] = set()
    for op in ops:
        if any(v in changing for v in op.operands):
            out.add(op)
            changing.update(op.results)
    return out


def _steps(loop: O.ForOp) -> list[tuple[Value, Value]]:
    """Loop-carried values that advance by a loop-invariant increment (``p += inc``)."""
    term = loop.body.terminator
    if term is None:
        return []
    out = []
    for arg, nxt in zip(loop.body.args[1:], term.operands):
        op = nxt.defining_op
        if op is None or op.parent is not loop.body:
            continue
        a, b = op.operands[:2] if len(op.operands) >= 2 else (None, None)
        if isinstance(op, O.AddPtrOp) and a is arg:
            inc = b
        elif isinstance(op, O.BinaryOp) and op.kind is O.BinaryKind.ADD and _is_int(arg):
            inc = b if a is arg else a if b is arg else None
        else:
            continue
        if inc is None:
            continue
        deps = _deps(loop, [inc])
        if deps is not None and not deps[1]:
            out.append((arg, inc))
    return out


def _is_int(v: Value) -> bool:
    elem = element_of(v.type)
    return isinstance(elem, ScalarType) and elem.is_int() and elem.bits > 1


# -- emission --------------------------------------------------------------------------------
def prologue(
    L: Lowering, p: LoopPipeline, lb: ir.Value, ub: ir.Value, step: ir.Value,
    inits: list[Lowered], signed: bool,
) -> None:
    """Start the copies of iterations 0 .. S-2 (into slots 0 .. S-2), one group each."""
    base = dict(zip(p.loop.body.args[1:], inits))
    for d in range(p.stages - 1):
        issue(L, p, lb, step, ub, signed, base, d, ir.Constant(I32, d))


def top_of_body(
    L: Lowering, p: LoopPipeline, iv: ir.Value, ub: ir.Value, step: ir.Value, signed: bool,
    carried: list[Lowered], slot: ir.Value,
) -> None:
    """Start iteration k+S-1's copies, then wait until iteration k's have landed."""
    s = p.stages
    ahead = L.b.select(
        L.b.icmp_unsigned("==", slot, ir.Constant(I32, 0)),
        ir.Constant(I32, s - 1),
        L.b.sub(slot, ir.Constant(I32, 1)),
    )  # (k + S - 1) mod S
    base = dict(zip(p.loop.body.args[1:], carried))
    issue(L, p, iv, step, ub, signed, base, s - 1, ahead)
    cp_async.wait_group(L.b, s - 1)


def next_slot(b: ir.IRBuilder, p: LoopPipeline, slot: ir.Value) -> ir.Value:
    nxt = b.add(slot, ir.Constant(I32, 1))
    at_end = b.icmp_unsigned("==", nxt, ir.Constant(I32, p.stages))
    return b.select(at_end, ir.Constant(I32, 0), nxt)


def issue(
    L: Lowering, p: LoopPipeline, iv: ir.Value, step: ir.Value, ub: ir.Value, signed: bool,
    carried: dict[Value, Lowered], distance: int, slot: ir.Value,
) -> None:
    """Copy iteration (iv's iteration + distance) into ``slot`` of every staged load and commit
    one group. The body ops computing addresses and masks are lowered for that iteration into a
    scratch environment that is discarded afterwards."""
    b = L.b
    loop = p.loop
    env = L.env
    saved = {v: env[v] for v in loop.body.args if v in env}
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
    for op in (*p.invariant_ops, *p.variant_ops):
        for r in op.results:
            env.pop(r, None)
    for v in loop.body.args:
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
        return Tile(base.layout, base.shape, {
            k: one(r, step.regs[k] if isinstance(step, Tile) else step)
            for k, r in base.regs.items()
        })
    assert not isinstance(step, Tile)
    return one(base, step)


def _chunk(L: Lowering, staged: StagedLoad, slot: ir.Value, group: int) -> ir.Value:
    """This thread's chunk of vector group ``group`` in ``slot``: consecutive threads own
    consecutive chunks, so a warp's copies and reads are conflict-free."""
    b = L.b
    fixed = staged.offset + group * _threads(L) * staged.nbytes
    where = b.add(b.mul(slot, ir.Constant(I32, staged.stage_bytes)), ir.Constant(I32, fixed))
    where = b.add(where, L.thread_bytes(staged.nbytes))
    return b.gep(L.shared_base(), [where], source_etype=I8)


def _copy(L: Lowering, p: LoopPipeline, staged: StagedLoad, slot: ir.Value, live: ir.Value) -> None:
    op = staged.op
    assert isinstance(op.result.type, TileType)
    layout, shape = L.want(op.result), op.result.type.shape
    ptrs = L.pointers(op.ptr, layout)
    mask = L.value(op.mask, layout) if op.mask is not None else None
    for g, group in enumerate(vector_groups(L, layout, shape, staged.vw)):
        pred = live
        if mask is not None:
            m = mask.regs[group[0]] if isinstance(mask, Tile) else mask
            pred = L.b.and_(pred, m)
        cp_async.copy(L.b, _chunk(L, staged, slot, g), ptrs.regs[group[0]], staged.nbytes, pred)


def read(L: Lowering, staged: StagedLoad, slot: ir.Value) -> None:
    """Lower ``staged.op`` as a read of this iteration's slot; masked-off lanes take ``other``."""
    op = staged.op
    b = L.b
    assert isinstance(op.result.type, TileType)
    elem = element_of(op.result.type)
    mem_ty = memory_type(elem)  # type: ignore[arg-type]
    layout, shape = L.want(op.result), op.result.type.shape
    mask = L.value(op.mask, layout) if op.mask is not None else None
    other = L.value(op.other, layout) if op.other is not None and mask is not None else None
    vec_ty = ir.VectorType(mem_ty, staged.vw)
    regs = {}
    for g, group in enumerate(vector_groups(L, layout, shape, staged.vw)):
        got = b.load(_chunk(L, staged, slot, g), typ=vec_ty, align=staged.nbytes)
        for i, key in enumerate(group):
            val = b.extract_element(got, ir.Constant(I32, i))
            if other is not None:
                m = mask.regs[key] if isinstance(mask, Tile) else mask
                alt = other.regs[key] if isinstance(other, Tile) else other
                val = b.select(m, val, alt)
            regs[key] = val
    L.set(op.result, Tile(layout, shape, regs))
