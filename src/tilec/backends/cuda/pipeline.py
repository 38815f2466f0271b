"""Software pipelining of loop loads: multi-buffered shared memory filled by cp.async.

A ``for`` loop with S = ``num_stages`` >= 2 (``tl.range(..., num_stages=S)``; a loop without
its own takes the launch's ``num_stages`` for loads that feed a ``tl.dot``, as Triton does) on
sm_80+ keeps the loads of iterations k+1 .. k+S-1 in flight while iteration k computes. A load
is pipelined when it sits directly in the loop body, loads a tile of 1- to 8-byte numbers with
the default, ``.ca`` or ``.cg`` cache policy, moves 4, 8 or 16 bytes per vector access, and its
pointer and mask are pure functions of the induction variable, loop invariants and loop-carried
values that advance by an invariant step (``p += inc``): then they can be computed ahead for
iteration k+d. No store or atomic in the loop may write through the pointer argument it reads
(a copy issued ahead would read memory before an earlier iteration's store). Two kinds of slot:
- a tensor-core dot operand (pipeline_operands.py) is copied into its slot in the dot's swizzled
  layout, and the dot reads it from there with ldmatrix: every thread reads what others copied;
- any other load (only with ``Lowering.private_stages``) goes to thread-private chunks that
  the load op reads back into registers.
pipeline_lowering.py emits it all.

Schedule (slots are S buffers per load, iteration k uses slot k mod S):
  prologue       bar.sync; for d in 0..S-2: copy iteration d into slot d; commit a group
  top of body k  private slots only: copy iteration k+S-1 into slot (k+S-1) mod S; commit;
                 wait_group(S-1)
                 with dot operands: wait_group(S-2); bar.sync; then, once the body's first dot
                 has issued its first k step (else at the end of the body), copy iteration
                 k+S-1 into slot (k+S-1) mod S; commit
  the load op    private: read slot k mod S, masked-off lanes take ``other`` (select with the
                 mask of k); operand: nothing, the dot reads slot k mod S
  after the loop wait_all
Copies for iterations past the end are issued with source size 0 (they read nothing and write
zeros) so that every thread commits exactly one group per iteration.

Invariants that make this correct:
- ``cp.async.wait_group N`` makes every copy of the thread's groups older than its N most recent
  complete and visible to the thread. Group g holds iteration g (S-1 prologue groups, then one
  per iteration). At the top of iteration k the private schedule has committed S-1+k+1 groups,
  so wait_group(S-1) completes groups 0..k; the operand schedule waits before committing
  (S-1+k groups), so wait_group(S-2) completes the same 0..k. Groups committed by other code in
  between only make the wait stricter, never looser.
- Private slots: each thread copies into, and later reads, only its own chunks (chunk address =
  slot, vector group and thread id), so no barrier is needed. The slot written at the top of
  iteration k ((k-1) mod S) was last read by this thread in iteration k-1, earlier in program
  order; ptxas orders a thread's cp.async after its earlier shared loads of the same address.
- Operand slots: the bar.sync after the wait makes every thread's copies of iteration k visible
  to all (RAW), and every warp has finished iteration k-1, whose reads of slot (k-1) mod S are
  the last before the copies issued after the barrier overwrite it (WAR). One barrier per
  iteration (Triton has two: it reads a whole stage into registers and overwrites that slot).
  The copies are issued by code directly in the body, never in a branch of it, so every thread
  commits one group per iteration.
- Pending zero-fill copies of iterations past the end are drained by wait_all at the loop exit,
  so a re-entered loop (an outer loop around it) never sees a stale copy land on a new one.
- The buffers occupy the start of dynamic shared memory. Layout conversions, reductions and the
  dot's own staging inside the loop use scratch above them (Lowering.reserved); outside
  pipelined loops the scratch may reuse them: every scratch user starts with a barrier, which
  follows the wait_all at the loop exit, and the barrier before the prologue keeps the copies
  from overwriting scratch that another warp still reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...ir import ops as O
from ...ir.core import Op, Value
from ...ir.types import PointerType, ScalarType, TileType, element_of
from . import cp_async
from .lowering_state import LoweringState
from .mma import ATOM_ALIGN, Staged
from .pipeline_operands import budget, operand_layout
from .vector_access import vector_groups, vector_width

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
    operand: Staged | None = None  # a dot operand: the slot holds it in the dot's layout


@dataclass(frozen=True, eq=False)
class LoopPipeline:
    loop: O.ForOp
    stages: int
    loads: tuple[StagedLoad, ...]
    invariant_ops: tuple[Op, ...]  # body ops the copies need that do not change per iteration
    variant_ops: tuple[Op, ...]  # body ops the copies need, in body order, computed for k+d
    steps: tuple[tuple[Value, Value], ...]  # (loop-carried arg, its invariant increment)

    @property
    def synchronized(self) -> bool:
        """Whether other threads than the copying one read some slots (dot operands): then
        each iteration waits for its own copies and one barrier publishes the stage."""
        return any(s.operand is not None for s in self.loads)


def plan(L: LoweringState, func: O.FuncOp) -> dict[Op, LoopPipeline]:
    """The loops of ``func`` to pipeline; reserves their buffers at the start of shared memory."""
    out: dict[Op, LoopPipeline] = {}
    if L.arch < cp_async.MIN_ARCH or L.num_stages is None:
        return out  # no cp.async before sm_80: plain loads
    loops = [op for op in func.walk() if isinstance(op, O.ForOp)]
    reserved = 0
    for loop in loops:
        got = _plan_loop(L, loop, reserved)
        if got is not None:
            out[loop] = got
            reserved = max(s.offset + got.stages * s.stage_bytes for s in got.loads)
    L.reserve_shared(reserved)
    return out


def _plan_loop(L: LoweringState, loop: O.ForOp, start: int) -> LoopPipeline | None:
    explicit = loop.num_stages is not None
    stages = (loop.num_stages if explicit else L.num_stages) or 1
    if stages < 2:
        return None
    steps = _steps(loop)
    written = _written(loop)
    candidates = []
    for op in loop.body.ops:
        if not isinstance(op, O.LoadOp) or _may_see_stores(op, written):
            continue
        if explicit or _feeds_dot(loop, op):
            got = _eligible(L, loop, op, steps)
            if got is not None:
                candidates.append(got)
    if not candidates:
        return None
    operands = any(c.operand is not None for c in candidates)
    limit = min(budget(L.arch), L.max_shared) if operands else BUDGET
    while stages >= 2 and _place(candidates, start, stages)[1] > limit:
        stages -= 1
    if stages < 2:
        return None
    loads, _ = _place(candidates, start, stages)
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


def _place(loads: list[StagedLoad], start: int, stages: int) -> tuple[list[StagedLoad], int]:
    """``loads`` with their slot offsets from ``start``, and the end of their buffers. A wgmma
    operand's slots start on 1024 bytes: its swizzle is a function of the address bits."""
    out, offset = [], start
    for c in loads:
        align = ATOM_ALIGN if c.operand is not None and c.operand.atom else 1
        offset = (offset + align - 1) // align * align
        out.append(replace(c, offset=offset))
        offset += stages * c.stage_bytes
    return out, offset


_WRITES = (O.StoreOp, O.AtomicRMWOp, O.AtomicCASOp)
_SAME_BASE = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, O.ExpandDimsOp, O.ReshapeOp, O.HintOp)


def _written(loop: O.ForOp) -> set[Value] | None:
    """The pointer arguments the loop body stores through (None: some store's is unknown)."""
    out: set[Value] = set()
    for top in loop.body.ops:
        for op in top.walk():
            if isinstance(op, _WRITES):
                bases = _bases(op.operands[0])
                if bases is None:
                    return None
                out |= bases
    return out


def _feeds_dot(loop: O.ForOp, load: O.LoadOp) -> bool:
    """Whether ``load`` is (through the body's ops) an operand of a tl.dot in the body: the
    loads a loop without its own num_stages pipelines with the launch's (as Triton does)."""
    tainted = {load.result}
    for op in loop.body.ops:
        if not any(v in tainted for v in op.operands):
            continue
        if isinstance(op, O.DotOp) and any(v in tainted for v in op.operands[:2]):
            return True
        tainted.update(op.results)
    return False


def _may_see_stores(load: O.LoadOp, written: set[Value] | None) -> bool:
    """Whether a store in the loop may write what ``load`` reads in a later iteration: copying
    it ahead would then read memory before that store. Pointers from different arguments are
    taken not to overlap (as Triton's pipeliner does)."""
    if written is not None and not written:
        return False
    bases = _bases(load.ptr)
    return written is None or bases is None or bool(bases & written)


def _bases(ptr: Value) -> set[Value] | None:
    """The function or block arguments ``ptr`` is derived from (through addptr, splat...,
    loop-carried values and loop results), or None when that is unknown."""
    out: set[Value] = set()
    seen: set[Value] = set()
    stack = [ptr]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        op = v.defining_op
        if isinstance(op, _SAME_BASE):
            stack.append(op.operands[0])
        elif isinstance(op, O.ForOp):
            stack += _carried_sources(op, v.index)
        elif op is not None:
            return None
        else:
            block = v.owner
            region = getattr(block, "parent", None)
            loop = getattr(region, "parent", None)
            if isinstance(loop, O.ForOp) and v.index >= 1:
                stack += _carried_sources(loop, v.index - 1)
            else:
                out.add(v)
    return out


def _carried_sources(loop: O.ForOp, i: int) -> list[Value]:
    term = loop.body.terminator
    return [loop.init_args[i]] + ([term.operands[i]] if term is not None else [])


def threads(L: LoweringState) -> int:
    return L.num_warps * L.target.warp_size


def _roots(op: O.LoadOp) -> list[Value]:
    return [op.ptr] + ([op.mask] if op.mask is not None else [])


def _eligible(
    L: LoweringState, loop: O.ForOp, op: O.LoadOp, steps: list[tuple[Value, Value]]
) -> StagedLoad | None:
    """How ``op`` is copied ahead (its slot offset still 0), or None when it cannot be: dot
    operands always, other loads where ``L.private_stages`` allows thread-private slots."""
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
    vw = vector_width(L.axis, op.ptr, op.mask, layout, shape, L.target.vector_bytes)
    nbytes = vw * elem.bits // 8
    if nbytes not in cp_async.SIZES:
        return None
    count = len(vector_groups(layout, shape, vw))
    operand = operand_layout(L, loop, op, nbytes)
    if operand is not None:
        align = ATOM_ALIGN if operand.atom else 128
        return StagedLoad(op, vw, nbytes, count, 0, -(-operand.nbytes // align) * align, operand)
    if not L.private_stages:
        return None
    return StagedLoad(op, vw, nbytes, count, 0, count * nbytes * threads(L))


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
