"""Which tensor-core plan each ``tl.dot`` of a kernel runs, decided once for the whole kernel.

A dot's plan mostly depends on the dot alone (mma.choose), except for its warp grid: where one
dot's result, through elementwise ops and casts, becomes operand A of another (attention's
``p = exp(qk - m).to(fp16)``, then ``tl.dot(p, v, acc)``), both dots put every warp along M.
Then each warp holds whole rows, so the row reductions between the dots stay inside a warp, and
the accumulator layout of the first (mma.py) holds exactly the A fragments of m16n8k16 for the
second: the second dot reads A from registers (rules.dot_mma) and shared memory never sees it.
The layout pins, the pipeliner and the dot rule all read the plans from here, so they agree.
"""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Value
from .mma import MmaKind, MmaPlan, choose

# ops whose tile result is computed element by element from same-shaped operands: a dot's
# result stays "a dot's result" through them, and its layout flows through them (mma_pins)
ELEMENTWISE = (O.BinaryOp, O.CompareOp, O.MathOp, O.SelectOp, O.CastOp)


class DotPlans:
    """The plans of every dot in ``func`` (None: the dot runs on FMAs)."""

    def __init__(self, func: O.FuncOp, num_warps: int, arch: int, wgmma: bool) -> None:
        self.num_warps, self.arch, self.wgmma = num_warps, arch, wgmma
        dots = [op for op in func.walk() if isinstance(op, O.DotOp)]
        rows = chained(dots)
        self._plans = {op: choose(op, num_warps, arch, wgmma, op in rows) for op in dots}

    def __call__(self, op: O.DotOp) -> MmaPlan | None:
        plan = self._plans.get(op, False)
        if plan is False:  # a dot built after planning (none today): planned alone
            plan = self._plans[op] = choose(op, self.num_warps, self.arch, self.wgmma)
        return plan  # type: ignore[return-value]

    def items(self) -> list[tuple[O.DotOp, MmaPlan | None]]:
        return list(self._plans.items())


def chained(dots: list[O.DotOp]) -> set[O.DotOp]:
    """The dots whose operand A is computed from another dot's result, and those others."""
    found: set[O.DotOp] = set()
    for dot in dots:
        source = _source_dot(dot.operands[0])
        if source is not None and source is not dot:
            found |= {dot, source}
    return found


def _source_dot(v: Value) -> O.DotOp | None:
    """The dot whose result ``v`` is computed from through elementwise ops, if any."""
    seen: set[int] = set()
    todo = [v]
    while todo:
        value = todo.pop()
        op = value.defining_op
        if op is None or id(op) in seen:
            continue
        seen.add(id(op))
        if isinstance(op, O.DotOp):
            return op
        if isinstance(op, ELEMENTWISE):
            todo.extend(op.operands)
    return None


def register_a(plan: MmaPlan) -> bool:
    """Whether operand A of ``plan`` can come from registers in its accumulator layout: 16-bit
    fragments (two elements per 32-bit word, the accumulator's column pairs) and every warp
    along M, so that a thread holds all of K for its rows."""
    return plan.kind in (MmaKind.F16, MmaKind.BF16) and plan.wn == 1
