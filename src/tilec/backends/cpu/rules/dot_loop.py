"""A loop that only accumulates one fp32 dot keeps the accumulator in registers throughout.

``for k: a = load(..); b = load(..); acc = dot(a, b, acc)`` (the tutorials' matmul) is lowered
block by block: for each register block of the accumulator the loop runs once with that block in
vector registers and the operands read in place, so the accumulator is loaded and stored once per
block rather than once per iteration. The body has no side effects and only the dot reads the
accumulator, so each run computes the same values; a step whose operands are not in bounds packs
the block's rows of A and all of B (the edges of the iteration space).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from llvmlite import ir

from ....errors import TilecError
from ....ir import ops as O
from ....ir.core import Op, Value
from ....ir.types import TileType, element_of, float32
from ...llvm import types as T
from ..load_tile import LoadTile
from ..lower import Lowered, Lowering
from ..matmul import WIDENED, Block, blocking, each_block, fits_micro_kernel
from ..operand import InPlace, Packed, in_bounds, in_place
from ..tiles import BufferTile, MapTile, Scope, Tile, ViewTile

# body ops that only compute values (lazily, for tiles): running them once per block is cheap
_PURE = (
    O.BinaryOp,
    O.CompareOp,
    O.SelectOp,
    O.CastOp,
    O.ConstantOp,
    O.ProgramIdOp,
    O.MakeRangeOp,
    O.AddPtrOp,
    O.LoadOp,
    O.SplatOp,
    O.BroadcastOp,
    O.ExpandDimsOp,
    O.HintOp,
)

_NULL = ir.Constant(T.ptr, None)  # the address of a buffer that is only looked at

EmitFor = Callable[[Lowering, O.ForOp, dict[int, Lowered]], Callable[[], list[Lowered]]]


@dataclass(frozen=True)
class DotLoop:
    dot: O.DotOp
    acc: int  # the accumulator's position among the loop's iter args
    add: O.BinaryOp | None  # ``acc + dot(a, b)`` (the dot's own accumulator is zero)


def match(lw: Lowering, op: O.ForOp, stepped: Callable[[int], bool]) -> DotLoop | None:
    """The plan for ``op`` when it is such a loop (``stepped(i)``: iter arg i advances by a
    scalar step, so it needs no tile carried between iterations)."""
    body, term = op.body, op.body.terminator
    dots = [o for o in body.ops if isinstance(o, O.DotOp)]
    if len(dots) != 1 or not isinstance(term, O.YieldOp):
        return None
    plan = _accumulation(lw, op, dots[0])
    if plan is None or not _types_ok(plan.dot):
        return None
    for inner in body.ops:
        if inner in (plan.dot, plan.add, term):
            continue
        if not isinstance(inner, _PURE) or (isinstance(inner, O.LoadOp) and inner.volatile):
            return None
    for i, a in enumerate(body.args[1:]):
        if i != plan.acc and isinstance(a.type, TileType) and not stepped(i):
            return None
    c_t = plan.dot.result.type
    assert isinstance(c_t, TileType)
    if not fits_micro_kernel(lw, BufferTile(c_t.shape, float32, _NULL)):
        return None
    a_t, b_t = _probe_operands(lw, op, plan, stepped)
    a_in, b_in = _as_in_place(a_t), _as_in_place(b_t)
    if a_in is None or b_in is None or b_in.step != 1:
        return None
    return plan


def _accumulation(lw: Lowering, op: O.ForOp, dot: O.DotOp) -> DotLoop | None:
    """How the loop accumulates ``dot``: ``acc = dot(a, b, acc)`` or ``acc = acc + dot(a, b)``
    (either operand order), with the accumulator and each step read by nothing else."""
    users = lw.live.users
    term = op.body.terminator
    assert term is not None
    args = op.body.args[1:]
    step: Op = dot
    add: O.BinaryOp | None = None
    acc_v = dot.operands[2]
    only_add = users.get(dot.result) and len(users[dot.result]) == 1
    user = next(iter(users[dot.result])) if only_add else None
    if isinstance(user, O.BinaryOp) and user.kind is O.BinaryKind.ADD and _is_zero(acc_v):
        add, step = user, user
        others = [v for v in user.operands if v is not dot.result]
        acc_v = others[0] if len(others) == 1 else acc_v
    acc = next((i for i, a in enumerate(args) if a is acc_v), None)
    if acc is None or term.operands[acc] is not step.result:
        return None
    if users.get(acc_v) != {step} or users.get(step.result) != {term}:
        return None
    if add is not None and users.get(dot.result) != {add}:
        return None
    if sum(1 for v in term.operands if v is step.result) != 1:
        return None
    return DotLoop(dot, acc, add)


def _types_ok(dot: O.DotOp) -> bool:
    """fp32 accumulation of fp32, fp16 or bf16 operands (both the same type)."""
    ea, eb, ec = (element_of(v.type) for v in dot.operands)
    return ec == float32 and ea == eb and str(ea) in WIDENED


def _is_zero(v: Value) -> bool:
    d = v.defining_op
    return isinstance(d, O.ConstantOp) and d.value == 0


def _probe_operands(
    lw: Lowering, op: O.ForOp, plan: DotLoop, stepped: Callable[[int], bool]
) -> tuple[Lowered | None, Lowered | None]:
    """The dot's operands as the body lowers them, from a trial lowering of the body into a
    scratch function (thrown away): their stride and mask facts decide the plan."""
    body = op.body
    with lw.trial(op):
        try:
            for i, arg in enumerate(body.args[1:]):
                init = lw.get(op.init_args[i])
                if isinstance(init, Tile) and stepped(i):
                    # as SteppedCarry.value(): the initial tile plus a uniform offset
                    src = BufferTile(init.shape, init.elem, _NULL) if init.has_load else init
                    init = MapTile(init.shape, init.elem, [src], _keep, stride_rule=lambda s: s[0])
                lw.env[arg] = init
            for inner in body.ops:
                if inner not in (plan.dot, plan.add, body.terminator):
                    lw.lower_op(inner)
        except TilecError:
            return None, None
        return lw.env.get(plan.dot.operands[0]), lw.env.get(plan.dot.operands[1])


def _keep(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
    return v[0]


def lower(lw: Lowering, op: O.ForOp, plan: DotLoop, emit_for: EmitFor) -> None:
    c_t = plan.dot.result.type
    assert isinstance(c_t, TileType)
    m, n = c_t.shape
    c = lw.buffer(float32, c_t.shape)
    lw.write(lw.tile(op.init_args[plan.acc], c_t.shape), c)
    with each_block(lw, blocking(lw, m, n), m, n) as blk:
        blk.load(lw.b, c)
        lw.op_hooks[plan.dot] = lambda lw, dot: _step(lw, plan.dot, blk, c)
        if plan.add is not None:  # the sum is the block's registers too
            lw.op_hooks[plan.add] = lambda lw, add: lw.define(add.result, c)
        values = emit_for(lw, op, {plan.acc: c})
        blk.store(lw.b, c)
    for hooked in (plan.dot, plan.add):
        if hooked is not None:
            del lw.op_hooks[hooked]
    # read after the block loops: the carried slots hold what the last run left (every run
    # computes the same values)
    for r, v in zip(op.results, values()):
        lw.env[r] = v


def _step(lw: Lowering, dot: O.DotOp, blk: Block, c: BufferTile) -> None:
    """One iteration's ``acc += a @ b`` on the block's registers (``c`` stands for the dot's
    result: the accumulator's buffer, written after the loop)."""
    lw.define(dot.result, c)
    b = lw.b
    a_t, b_t = lw.tile(dot.operands[0]), lw.tile(dot.operands[1])
    a_in = _as_in_place(a_t)
    b_in = _as_in_place(b_t)
    if a_in is None or b_in is None or b_in.step != 1:
        _packed_step(lw, blk, a_t, b_t)
        return
    fn = b.function
    fast, slow, done = (fn.append_basic_block(f"dotk.{k}") for k in ("inplace", "packed", "done"))
    b.cbranch(in_bounds(lw, [a_in, b_in]), fast, slow)
    b.position_at_end(slow)
    _packed_step(lw, blk, a_t, b_t)
    b.branch(done)
    b.position_at_end(fast)
    blk.multiply(b, [a_in.row(b, r) for r in blk.rows], a_in.step, a_in.elem, b_in)
    b.branch(done)
    b.position_at_end(done)


def _as_in_place(t: Lowered | None) -> InPlace | None:
    if not isinstance(t, LoadTile) or t.volatile:
        return None
    return in_place(t.ptr, t.mask, t.elem)


def _packed_step(lw: Lowering, blk: Block, a_t: Tile, b_t: Tile) -> None:
    """The step through copies: the block's rows of A and all of B (masked-off lanes read as
    ``other``), for steps at the edges of the operands."""
    i0 = blk.rows[0]
    mr, k_dim = len(blk.rows), a_t.shape[1]

    def rows_of_block(s: Scope, idx: tuple[ir.Value, ...]) -> tuple[ir.Value, ...]:
        return (s.b.add(idx[0], i0), idx[1])

    a_rows = lw.materialize(ViewTile((mr, k_dim), a_t, rows_of_block, a_t.stride(), True))
    b_buf = lw.materialize(b_t)
    packed = Packed(a_rows)
    a_ptrs = [packed.row(lw.b, ir.Constant(T.i64, r)) for r in range(mr)]
    blk.multiply(lw.b, a_ptrs, 1, a_t.elem, Packed(b_buf))
