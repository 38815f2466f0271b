"""Rules for structured control flow: if, for, while, return.

Values carried through a region live in stack slots (scalars, promoted to registers by mem2reg)
or stack buffers (tiles; a loop may lay them out transposed: rules/carry_layout.py). Lazy values
that a region uses from outside are computed before it (``Lowering.enter_region_op``), so a loop
never re-reads memory its own stores changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....errors import LoweringError
from ....ir import ops as O
from ....ir.core import Block, Op, Value
from ....ir.types import Kind, PointerType, ScalarType, TileType, Type, shape_of
from ...llvm import types as T
from ..lower import Lowered, Lowering
from ..tiles import BufferTile, MapTile, Tile, reads_buffer, storage
from . import dot_loop
from .carry_layout import carried_inner_axes, in_place


class Carried:
    """Slots for values that flow around a region: one per type (``inner``: the axis to lay
    out innermost for some of the tiles, by position)."""

    def __init__(self, lw: Lowering, types: Sequence[Type], inner: dict[int, int] | None = None):
        self.lw = lw
        self.types = list(types)
        self.slots: list[ir.Value | BufferTile] = []
        for k, t in enumerate(self.types):
            if isinstance(t, TileType):
                self.slots.append(lw.buffer(t.element, t.shape, (inner or {}).get(k)))
            else:
                self.slots.append(lw.slot(storage(t)))  # type: ignore[arg-type]

    def store(self, values: Sequence[Lowered]) -> None:
        lw = self.lw
        bufs = {id(s.addr) for s in self.slots if isinstance(s, BufferTile)}
        pairs = [
            (slot, lw.tile_of(v, t))
            for slot, v, t in zip(self.slots, values, self.types)
            if isinstance(slot, BufferTile)
        ]
        staged: list[tuple[BufferTile, Tile]] = []
        for slot, tile in pairs:
            if tile is slot:
                continue
            others = [o for s, o in pairs if s is not slot]
            # e.g. swapped carries: stage through a copy, unless each element only reads its own
            if reads_buffer(tile, bufs) and not in_place(tile, slot, others, bufs):
                tile = lw.settle(_copy_view(tile) if isinstance(tile, BufferTile) else tile)
            staged.append((slot, tile))
        for slot, v in zip(self.slots, values):
            if not isinstance(slot, BufferTile):
                assert not isinstance(v, Tile)
                lw.b.store(v, slot)
        for slot, tile in staged:
            lw.write(tile, slot)

    def values(self) -> list[Lowered]:
        out: list[Lowered] = []
        for slot, t in zip(self.slots, self.types):
            if isinstance(slot, BufferTile):
                out.append(slot)
            else:
                out.append(self.lw.b.load(slot, typ=storage(t)))  # type: ignore[arg-type]
        return out


def _copy_view(buf: BufferTile) -> Tile:
    return MapTile(buf.shape, buf.elem, [buf], lambda b, v: v[0])


def lower_region(lw: Lowering, block: Block) -> list[Value] | None:
    """Lower a region's ops; the terminator's operands, or None when the block returned."""
    for op in block.ops[:-1] if block.terminator is not None else block.ops:
        lw.lower_op(op)
        if lw.b.block.is_terminated:
            return None
    term = block.terminator
    if isinstance(term, O.ReturnOp):
        lw.lower_op(term)
        return None
    return list(term.operands) if term is not None else []


def _bind(lw: Lowering, args: Sequence[Value], values: Sequence[Lowered]) -> None:
    for a, v in zip(args, values):
        lw.env[a] = v


def _if(lw: Lowering, op: O.IfOp) -> None:
    lw.enter_region_op(op)
    cond = lw.scalar(op.operands[0])
    out = Carried(lw, [r.type for r in op.results])
    fn = lw.b.function
    then_bb, else_bb, merge = (fn.append_basic_block(n) for n in ("if.then", "if.else", "if.end"))
    lw.b.cbranch(cond, then_bb, else_bb)
    for bb, block in ((then_bb, op.then_block), (else_bb, op.else_block)):
        lw.b.position_at_end(bb)
        yields = lower_region(lw, block)
        if yields is not None:
            out.store([lw.get(v) for v in yields])
            lw.b.branch(merge)
    lw.b.position_at_end(merge)
    _bind(lw, op.results, out.values())


def _is_unsigned(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.kind is Kind.UINT


def _stepped(op: O.ForOp, i: int) -> O.SplatOp | O.ConstantOp | None:
    """The scalar step when tile iter arg ``i`` advances by a uniform amount each iteration.

    Pointer tiles advanced by ``ptrs += BLOCK * stride`` (and integer tiles by ``+= c``) then
    carry one scalar offset instead of a whole tile, and keep their contiguity facts."""
    arg = op.body.args[1 + i]
    term = op.body.terminator
    if not isinstance(arg.type, TileType) or term is None:
        return None
    d = term.operands[i].defining_op
    is_add = (
        isinstance(d, O.BinaryOp)
        and d.kind is O.BinaryKind.ADD
        and isinstance(arg.type.element, ScalarType)
        and arg.type.element.is_int()
    )
    if not (isinstance(d, O.AddPtrOp) or is_add) or d is None:
        return None
    a, b = d.operands
    other = b if a is arg else a if (is_add and b is arg) else None
    splat = other.defining_op if other is not None else None
    if isinstance(splat, O.ConstantOp) and isinstance(splat.value, int):
        return splat
    return splat if isinstance(splat, O.SplatOp) else None


class SteppedCarry:
    """``init + offset`` with one scalar offset slot (see :func:`_stepped`)."""

    def __init__(self, lw: Lowering, init: Tile, step: O.SplatOp | O.ConstantOp):
        self.lw, self.init, self.step = lw, init, step
        self.ptr = isinstance(init.elem, PointerType)
        self.t = T.i64 if self.ptr else storage(init.elem)
        self.slot = lw.slot(self.t)
        lw.b.store(ir.Constant(self.t, 0), self.slot)

    def value(self) -> Tile:
        off = self.lw.b.load(self.slot, typ=self.t)
        init, ptr = self.init, self.ptr
        pointee = storage(init.elem.element) if ptr else None  # type: ignore[union-attr]

        def fn(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
            return b.gep(v[0], [off], source_etype=pointee) if ptr else b.add(v[0], off)

        return MapTile(init.shape, init.elem, [init], fn, stride_rule=lambda s: s[0])

    def probe_value(self) -> Tile:
        """What :meth:`value` stands for, emitting nothing (for a trial lowering)."""
        return MapTile(self.init.shape, self.init.elem, [self.init], _first, lambda s: s[0])

    def advance(self) -> None:
        b = self.lw.b
        if isinstance(self.step, O.ConstantOp):
            step: ir.Value = ir.Constant(self.t, int(self.step.value))
        else:
            step = self.lw.scalar(self.step.operands[0])
        if step.type.width < self.t.width:
            st = self.step.operands[0].type if isinstance(self.step, O.SplatOp) else None
            signed = isinstance(st, ScalarType) and st.kind is Kind.SINT
            step = b.sext(step, self.t) if signed else b.zext(step, self.t)
        b.store(b.add(b.load(self.slot, typ=self.t), step), self.slot)


def _first(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
    return v[0]


def _for(lw: Lowering, op: O.ForOp) -> None:
    lw.enter_region_op(op)
    plan = dot_loop.match(lw, op, lambda i: _stepped(op, i) is not None)
    if plan is not None:
        dot_loop.lower(lw, op, plan, emit_for)
        return
    _bind(lw, op.results, emit_for(lw, op, {})())


def emit_for(lw: Lowering, op: O.ForOp, fixed: dict[int, Lowered]) -> Callable[[], list[Lowered]]:
    """Emit the loop; iter args in ``fixed`` are bound to the given values and not carried.
    Returns a function that reads the carried values at the current position (after the loop:
    its results; the entries of ``fixed`` come back as given)."""
    lb, ub, step = (lw.scalar(v) for v in op.operands[:3])
    n = len(op.results)
    steps = [None if i in fixed else _stepped(op, i) for i in range(n)]
    plain = [i for i in range(n) if steps[i] is None and i not in fixed]
    stepped: dict[int, SteppedCarry] = {}
    for i in range(n):
        s_v = steps[i]
        if s_v is not None:
            init = lw.tile(op.init_args[i], shape_of(op.init_args[i].type))
            if init.has_load:
                init = lw.materialize(init)
            stepped[i] = SteppedCarry(lw, init, s_v)
    given: dict[int, Lowered] = {**fixed, **{i: c.probe_value() for i, c in stepped.items()}}
    inner = carried_inner_axes(lw, op, plain, given)
    carried = Carried(lw, [op.results[i].type for i in plain], {
        k: inner[i] for k, i in enumerate(plain) if i in inner
    })  # fmt: skip
    carried.store([lw.get(op.init_args[i]) for i in plain])

    def values() -> list[Lowered]:
        plain_vals = iter(carried.values())
        return [
            fixed[i] if i in fixed else stepped[i].value() if i in stepped else next(plain_vals)
            for i in range(n)
        ]

    iv_slot = lw.slot(lb.type)
    lw.b.store(lb, iv_slot)
    fn = lw.b.function
    head, body, done = (fn.append_basic_block(n) for n in ("for.head", "for.body", "for.end"))
    lw.b.branch(head)
    lw.b.position_at_end(head)
    iv = lw.b.load(iv_slot, typ=lb.type)
    lw.b.cbranch(_loop_condition(lw, op, iv, ub, step), body, done)
    lw.b.position_at_end(body)
    lw.env[op.induction_var] = iv
    _bind(lw, op.body.args[1:], values())
    yields = lower_region(lw, op.body)
    if yields is not None:
        carried.store([lw.get(yields[i]) for i in plain])
        for carry in stepped.values():
            carry.advance()
        lw.b.store(lw.b.add(iv, step), iv_slot)
        lw.b.branch(head)
    lw.b.position_at_end(done)
    return values


def _loop_condition(
    lw: Lowering, op: O.ForOp, iv: ir.Value, ub: ir.Value, step: ir.Value
) -> ir.Value:
    b = lw.b
    if _is_unsigned(op.operands[0].type):
        return b.icmp_unsigned("<", iv, ub)
    up, down = b.icmp_signed("<", iv, ub), b.icmp_signed(">", iv, ub)
    if isinstance(step, ir.Constant):
        width = step.type.width
        value = int(step.constant) & ((1 << width) - 1)
        return down if value >> (width - 1) else up
    return b.select(b.icmp_signed(">", step, ir.Constant(step.type, 0)), up, down)


def _while(lw: Lowering, op: O.WhileOp) -> None:
    lw.enter_region_op(op)
    carried = Carried(lw, [v.type for v in op.operands])
    carried.store([lw.get(v) for v in op.operands])
    forwarded = Carried(lw, [r.type for r in op.results])
    fn = lw.b.function
    head, body, done = (fn.append_basic_block(n) for n in ("while.head", "while.body", "while.end"))
    lw.b.branch(head)
    lw.b.position_at_end(head)
    _bind(lw, op.before.args, carried.values())
    for inner in op.before.ops[:-1]:
        lw.lower_op(inner)
    term = op.before.terminator
    if not isinstance(term, O.ConditionOp):
        raise LoweringError("while: the before region must end in a condition", op.loc)
    forwarded.store([lw.get(v) for v in term.operands[1:]])
    lw.b.cbranch(lw.scalar(term.operands[0]), body, done)
    lw.b.position_at_end(body)
    _bind(lw, op.after.args, forwarded.values())
    yields = lower_region(lw, op.after)
    if yields is not None:
        carried.store([lw.get(v) for v in yields])
        lw.b.branch(head)
    lw.b.position_at_end(done)
    _bind(lw, op.results, forwarded.values())


def _return(lw: Lowering, op: O.ReturnOp) -> None:
    lw.ret()


def _terminator_outside_region(lw: Lowering, op: Op) -> None:
    raise LoweringError(f"'{op.name}' outside the region it terminates", op.loc)


RULES: dict[type, Callable[..., None]] = {
    O.IfOp: _if,
    O.ForOp: _for,
    O.WhileOp: _while,
    O.ReturnOp: _return,
    O.YieldOp: _terminator_outside_region,
    O.ConditionOp: _terminator_outside_region,
}
