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
from ....ir.types import TileType, element_of, float32
from ...llvm import types as T
from ..lower import Lowered, Lowering
from ..matmul import Block, blocking, each_block, fits_micro_kernel
from ..operand import InPlace, Packed, in_bounds, in_place
from ..tiles import BufferTile, MapTile, Scope, Tile, ViewTile
from .memory import LoadTile

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


def match(lw: Lowering, op: O.ForOp, stepped: Callable[[int], bool]) -> DotLoop | None:
    """The plan for ``op`` when it is such a loop (``stepped(i)``: iter arg i advances by a
    scalar step, so it needs no tile carried between iterations)."""
    body, term = op.body, op.body.terminator
    dots = [o for o in body.ops if isinstance(o, O.DotOp)]
    if len(dots) != 1 or not isinstance(term, O.YieldOp):
        return None
    dot = dots[0]
    c_v = dot.operands[2]
    args = body.args[1:]
    acc = next((i for i, a in enumerate(args) if a is c_v), None)
    if acc is None or term.operands[acc] is not dot.result:
        return None
    if lw.live.users.get(c_v) != {dot} or lw.live.users.get(dot.result) != {term}:
        return None
    if sum(1 for v in term.operands if v is dot.result) != 1:
        return None
    if any(element_of(v.type) != float32 for v in dot.operands):
        return None
    for inner in body.ops:
        if inner is dot or inner is term:
            continue
        if not isinstance(inner, _PURE) or (isinstance(inner, O.LoadOp) and inner.volatile):
            return None
    for i, a in enumerate(args):
        if i != acc and isinstance(a.type, TileType) and not stepped(i):
            return None
    c_t = dot.result.type
    assert isinstance(c_t, TileType)
    if not fits_micro_kernel(lw, BufferTile(c_t.shape, float32, _NULL)):
        return None
    a_t, b_t = _probe_operands(lw, op, dot, stepped)
    a_in, b_in = _as_in_place(a_t), _as_in_place(b_t)
    if a_in is None or b_in is None or b_in.step != 1:
        return None
    return DotLoop(dot, acc)


def _probe_operands(
    lw: Lowering, op: O.ForOp, dot: O.DotOp, stepped: Callable[[int], bool]
) -> tuple[Lowered | None, Lowered | None]:
    """The dot's operands as the body lowers them, from a trial lowering of the body into a
    scratch function (thrown away): their stride and mask facts decide the plan."""
    body = op.body
    scratch = ir.Function(ir.Module("tilec.probe"), ir.FunctionType(T.void, []), "probe")
    saved_b, saved_env = lw.b, dict(lw.env)
    lw.b = ir.IRBuilder(scratch.append_basic_block("probe"))
    lw.probing = True
    try:
        lw.env[op.induction_var] = ir.Constant(lw.scalar(op.operands[0]).type, 0)
        for i, arg in enumerate(body.args[1:]):
            init = lw.get(op.init_args[i])
            if isinstance(init, Tile) and stepped(i):
                # as SteppedCarry.value(): the initial tile plus a uniform offset
                src = BufferTile(init.shape, init.elem, _NULL) if init.has_load else init
                init = MapTile(init.shape, init.elem, [src], _keep, stride_rule=lambda s: s[0])
            lw.env[arg] = init
        for inner in body.ops:
            if inner is not dot and inner is not body.terminator:
                lw.lower_op(inner)
        return lw.env.get(dot.operands[0]), lw.env.get(dot.operands[1])
    except TilecError:
        return None, None
    finally:
        lw.b, lw.env, lw.probing = saved_b, saved_env, False


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
        lw.dot_hooks[plan.dot] = lambda _: _step(lw, plan.dot, blk)
        values = emit_for(lw, op, {plan.acc: c})
        blk.store(lw.b, c)
    del lw.dot_hooks[plan.dot]
    # read after the block loops: the carried slots hold what the last run left (every run
    # computes the same values)
    for r, v in zip(op.results, values()):
        lw.env[r] = v


def _step(lw: Lowering, dot: O.DotOp, blk: Block) -> None:
    """One iteration's ``acc += a @ b`` on the block's registers."""
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
    blk.multiply(b, [a_in.row(b, r) for r in blk.rows], a_in.step, b_in)
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
    blk.multiply(
        lw.b, [packed.row(lw.b, ir.Constant(T.i64, r)) for r in range(mr)], 1, Packed(b_buf)
    )
