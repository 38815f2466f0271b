"""Layouts fixed before layout assignment: every tensor-core dot's result is in its mma layout,
and so is every loop-carried value that a loop yields from one (``acc = tl.dot(a, b, acc)`` in a
``for`` keeps its accumulator in mma registers across iterations, converting only after the
loop). Consumers that want another layout convert where they read the value."""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Value
from .layout import Layout
from .mma import choose


def mma_pins(func: O.FuncOp, num_warps: int, arch: int) -> dict[Value, Layout]:
    pins: dict[Value, Layout] = {}
    loops: list[O.ForOp] = []
    for op in func.walk():
        if isinstance(op, O.DotOp):
            plan = choose(op, num_warps, arch)
            if plan is not None:
                pins[op.result] = plan.layout()
        elif isinstance(op, O.ForOp):
            loops.append(op)
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
    return pins
