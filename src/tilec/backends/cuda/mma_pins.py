"""Layouts fixed before layout assignment: tensor-core dot results and what is computed from them.

Every tensor-core dot's result is in its mma layout, and the layout flows forward: through
elementwise ops and casts (an epilogue's ``acc.to(tl.float16)`` converts half the bytes to the
store's layout), reductions (a slice of it), ``expand_dims``/broadcasts of such slices, and loop-
carried values a loop yields from any of these (``acc = tl.dot(a, b, acc)`` keeps its accumulator
in mma registers across iterations; attention's running max and sum stay in its row slice).
Consumers that want another layout convert where they read the value.
"""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Op, Value
from ...ir.types import TileType
from .dot_plans import ELEMENTWISE, DotPlans, register_a
from .layout import Layout, Slice


def mma_pins(func: O.FuncOp, plans: DotPlans) -> dict[Value, Layout]:
    ops = list(func.walk())
    pins: dict[Value, Layout] = {}
    for dot, plan in plans.items():
        if plan is not None:
            pins[dot.result] = plan.layout()
            if register_a(plan) and _invariant_load(dot.operands[0], dot):
                pins[dot.operands[0]] = plan.layout()
    if not pins:
        return pins
    loops = [op for op in ops if isinstance(op, O.ForOp)]
    changed = True
    while changed:  # a loop-carried pin makes its body argument pinned for later ops too
        changed = False
        for op in ops:
            for v, layout in _forward(op, pins):
                if v not in pins:
                    pins[v] = layout
                    changed = True
        for loop in loops:
            changed |= _carry(loop, pins)
    return pins


def _invariant_load(a: Value, dot: O.DotOp) -> bool:
    """Whether operand A of ``dot`` is a load outside the dot's block (attention's Q): loaded
    in the accumulator's layout, its registers are the A fragments (dot_plans.register_a), and
    the dot reads no shared memory for it. A load in the dot's own block is left to the
    pipeline."""
    load = a.defining_op
    return isinstance(load, O.LoadOp) and load.parent is not dot.parent


def _forward(op: Op, pins: dict[Value, Layout]) -> list[tuple[Value, Layout]]:
    """The layouts ``op``'s tile results take from its pinned operands."""
    results = [r for r in op.results if isinstance(r.type, TileType)]
    if not results:
        return []
    operands = [v for v in op.operands if v in pins]
    if not operands:
        return []
    if isinstance(op, ELEMENTWISE):
        shape = results[0].type.shape  # type: ignore[union-attr]
        same = [v for v in operands if getattr(v.type, "shape", None) == shape]
        return [(results[0], pins[same[0]])] if same else []
    if isinstance(op, O.ReduceOp):
        return [
            (r, Slice(pins[op.operands[0]], op.axis)) for r in results if op.operands[0] in pins
        ]
    if isinstance(op, O.ExpandDimsOp):
        got = pins[op.operands[0]]
        return [(op.result, got.parent)] if isinstance(got, Slice) and got.dim == op.axis else []
    if isinstance(op, O.BroadcastOp):
        got = pins[op.operands[0]]
        return [] if isinstance(got, Slice) else [(op.result, got)]
    return []


def _carry(loop: O.ForOp, pins: dict[Value, Layout]) -> bool:
    """Pin a loop result and its body argument to the layout of the value the body yields."""
    term = loop.body.terminator
    changed = False
    if term is None:
        return changed
    for i, (v, r) in enumerate(zip(term.operands, loop.results)):
        got = pins.get(v)
        if got is not None and r not in pins:
            pins[r] = got
            pins[loop.body.args[1 + i]] = got
            changed = True
    return changed
