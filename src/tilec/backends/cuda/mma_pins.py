"""Layouts fixed before layout assignment: every tensor-core dot's result is in its mma layout,
and so is every loop-carried value that a loop yields from one (``acc = tl.dot(a, b, acc)`` in a
``for`` keeps its accumulator in mma registers across iterations, converting only after the
loop), and so is a narrowing cast of such a value (an epilogue's ``acc.to(tl.float16)``: the
conversion to the store's layout then moves half the bytes). Consumers that want another layout
convert where they read the value."""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Value
from ...ir.types import element_of
from .layout import Layout
from .mma import choose


def mma_pins(func: O.FuncOp, num_warps: int, arch: int) -> dict[Value, Layout]:
    pins: dict[Value, Layout] = {}
    loops: list[O.ForOp] = []
    casts: list[O.CastOp] = []
    for op in func.walk():
        if isinstance(op, O.DotOp):
            plan = choose(op, num_warps, arch)
            if plan is not None:
                pins[op.result] = plan.layout()
        elif isinstance(op, O.ForOp):
            loops.append(op)
        elif isinstance(op, O.CastOp):
            casts.append(op)
    changed = True
    while changed:  # nested loops carry an inner loop's pinned result outwards
        changed = False
        for loop in loops:
            term = loop.body.terminator
            if term is None:
                continue
            for i, (v, r) in enumerate(zip(term.operands, loop.results)):
                got = pins.get(v)
                if got is not None and r not in pins:
                    pins[r] = got
                    pins[loop.body.args[1 + i]] = got
                    changed = True
    for cast in casts:  # in program order, so chains of casts follow
        got = pins.get(cast.operands[0])
        if got is not None and _bits(cast.result) < _bits(cast.operands[0]):
            pins[cast.result] = got
    return pins


def _bits(v: Value) -> int:
    elem = element_of(v.type)
    return getattr(elem, "bits", 64)
