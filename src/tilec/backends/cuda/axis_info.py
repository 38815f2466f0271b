"""Axis analysis: per-dimension contiguity, divisibility and constancy of integer/pointer tiles.

Decides how wide a load or store may be: a run of ``contiguity`` consecutive addresses whose first
address is a multiple of ``divisibility`` bytes (pointers) or units (integers), under a mask that
is constant over ``constancy`` elements. Conservative: unknown values get 1 everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...ir import ops as O
from ...ir.argspec import ArgKind
from ...ir.core import Block, Op, Value
from ...ir.types import PointerType, ScalarType, element_of, shape_of
from .types import byte_size

MAX_DIV = 1 << 12


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]  # for scalars a 1-tuple
    constancy: tuple[int, ...]


def _pow2_div(v: int) -> int:
    if v == 0:
        return MAX_DIV
    return min(v & -v, MAX_DIV)


def _unknown(v: Value) -> AxisInfo:
    shape = shape_of(v.type)
    if not shape:
        return AxisInfo((), (1,), ())
    return AxisInfo((1,) * len(shape), (1,) * len(shape), (1,) * len(shape))


def _uniform(v: Value, div: int) -> AxisInfo:
    shape = shape_of(v.type)
    if not shape:
        return AxisInfo((), (div,), ())
    return AxisInfo((1,) * len(shape), (div,) * len(shape), tuple(shape))


class AxisAnalysis:
    """Computes AxisInfo for every value of a function on demand, memoized."""

    def __init__(self, func: O.FuncOp) -> None:
        self.info: dict[Value, AxisInfo] = {}
        for arg, spec in zip(func.args, func.specs):
            div = 1
            if spec.divisible_by_16:
                div = 16
            if (
                spec.kind is ArgKind.SCALAR
                and isinstance(spec.type, ScalarType)
                and spec.type.is_floating()
            ):
                div = 1
            self.info[arg] = AxisInfo((), (div,), ())
        self._visit_block(func.body)

    def __getitem__(self, v: Value) -> AxisInfo:
        return self.info.get(v) or _unknown(v)

    def _visit_block(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, O.ForOp):
                self._for(op)
                continue
            self._visit(op)
            for region in op.regions:
                for inner in region.blocks:
                    self._visit_block(inner)

    def _for(self, op: O.ForOp) -> None:
        """Loop-carried values get what holds on entry and after every iteration (a fixpoint,
        as in Triton): a pointer advanced by ``p += BLOCK`` keeps its contiguity."""
        lb, step = self[op.operands[0]], self[op.operands[2]]
        self.info[op.induction_var] = AxisInfo(
            (), (math.gcd(lb.divisibility[0], step.divisibility[0]),), ()
        )
        args = op.body.args[1:]
        for arg, init in zip(args, op.init_args):
            self.info[arg] = self[init]
        term = op.body.terminator
        for _ in range(8):  # each change at least halves a power of two
            self._visit_block(op.body)
            if term is None:
                return
            changed = False
            for arg, nxt in zip(args, term.operands):
                met = _meet(self[arg], self[nxt])
                if met != self[arg]:
                    self.info[arg], changed = met, True
            if not changed:
                return
        for arg in args:
            self.info[arg] = _unknown(arg)
        self._visit_block(op.body)

    def _visit(self, op: Op) -> None:
        rule = _RULES.get(type(op))
        if rule is None or len(op.results) != 1:
            return
        info = rule(self, op)
        if info is not None:
            self.info[op.result] = info


def _meet(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """What holds for a value that may be either ``a`` or ``b``."""
    return AxisInfo(
        tuple(math.gcd(x, y) for x, y in zip(a.contiguity, b.contiguity)),
        tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
        tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
    )


def _constant(a: AxisAnalysis, op: Op) -> AxisInfo:
    assert isinstance(op, O.ConstantOp)
    value = op.value
    div = _pow2_div(int(value)) if isinstance(value, (bool, int)) else 1
    return _uniform(op.result, div)


def _make_range(a: AxisAnalysis, op: Op) -> AxisInfo:
    assert isinstance(op, O.MakeRangeOp)
    n = op.end - op.start
    return AxisInfo((n,), (_pow2_div(op.start),), (1,))


def _splat(a: AxisAnalysis, op: Op) -> AxisInfo:
    return _uniform(op.result, a[op.operands[0]].divisibility[0])


def _broadcast(a: AxisAnalysis, op: Op) -> AxisInfo:
    src = a[op.operands[0]]
    s_shape, d_shape = shape_of(op.operands[0].type), shape_of(op.result.type)
    contig = tuple(c if s == d else 1 for c, s, d in zip(src.contiguity, s_shape, d_shape))
    const = tuple(c if s == d else d for c, s, d in zip(src.constancy, s_shape, d_shape))
    return AxisInfo(contig, src.divisibility, const)


def _expand_dims(a: AxisAnalysis, op: Op) -> AxisInfo:
    assert isinstance(op, O.ExpandDimsOp)
    src = a[op.operands[0]]
    if not src.contiguity:
        return _unknown(op.result)
    ax = op.axis
    # along the new axis every element starts a run: the gcd of all elements, where a run of
    # consecutive integers (contiguity > 1) contributes 1 whatever its start
    div = math.gcd(*(1 if c > 1 else d for c, d in zip(src.contiguity, src.divisibility)))
    return AxisInfo(
        (*src.contiguity[:ax], 1, *src.contiguity[ax:]),
        (*src.divisibility[:ax], div, *src.divisibility[ax:]),
        (*src.constancy[:ax], 1, *src.constancy[ax:]),
    )


def _hint(a: AxisAnalysis, op: Op) -> AxisInfo:
    assert isinstance(op, O.HintOp)
    src = a[op.operands[0]]
    div = op.multiple_of or src.divisibility
    contig = op.max_contiguous or src.contiguity
    const = op.max_constancy or src.constancy
    if not src.contiguity:
        return AxisInfo((), (min(div[0], MAX_DIV),), ())
    return AxisInfo(tuple(contig), tuple(min(d, MAX_DIV) for d in div), tuple(const))


def _add_like(lhs: AxisInfo, rhs: AxisInfo, scale: int, sub: bool) -> AxisInfo:
    """``lhs + rhs*scale`` (scale = element bytes for addptr, 1 for integers)."""
    if not lhs.contiguity:
        return AxisInfo((), (math.gcd(lhs.divisibility[0], rhs.divisibility[0] * scale),), ())
    contig = tuple(
        math.gcd(lc, rk) if sub else max(math.gcd(lc, rk), math.gcd(rc, lk))
        for lc, rc, lk, rk in zip(lhs.contiguity, rhs.contiguity, lhs.constancy, rhs.constancy)
    )
    div = tuple(
        min(math.gcd(ld, rd * scale), MAX_DIV) for ld, rd in zip(lhs.divisibility, rhs.divisibility)
    )
    const = tuple(math.gcd(lk, rk) for lk, rk in zip(lhs.constancy, rhs.constancy))
    return AxisInfo(contig, div, const)


def _is_one(v: Value) -> bool:
    """Whether ``v`` is the constant 1 (possibly splat or broadcast)."""
    op = v.defining_op
    while isinstance(op, (O.SplatOp, O.BroadcastOp, O.ExpandDimsOp)):
        op = op.operands[0].defining_op
    return isinstance(op, O.ConstantOp) and op.value == 1 and not isinstance(op.value, bool)


def _element_div(info: AxisInfo, dim: int) -> int:
    """A power of two dividing every element along ``dim`` (not only each run's first)."""
    if info.contiguity and info.contiguity[dim] > 1:
        return 1
    return info.divisibility[dim]


def _binary(a: AxisAnalysis, op: Op) -> AxisInfo | None:
    assert isinstance(op, O.BinaryOp)
    elem = element_of(op.result.type)
    if not (isinstance(elem, ScalarType) and elem.is_int()):
        return None
    lhs, rhs = a[op.operands[0]], a[op.operands[1]]
    if op.kind in (O.BinaryKind.ADD, O.BinaryKind.SUB):
        return _add_like(lhs, rhs, 1, op.kind is O.BinaryKind.SUB)
    const = tuple(math.gcd(x, y) for x, y in zip(lhs.constancy, rhs.constancy))
    if op.kind is O.BinaryKind.MUL and (_is_one(op.operands[0]) or _is_one(op.operands[1])):
        # x * 1 (a stride given as constexpr 1) is x: keep its contiguity, as Triton does
        return lhs if _is_one(op.operands[1]) else rhs
    if op.kind is O.BinaryKind.MUL:
        # the product's elements all start runs (contiguity 1): a factor's run of consecutive
        # integers contributes 1 whatever its start
        div = tuple(
            min(_element_div(lhs, d) * _element_div(rhs, d), MAX_DIV)
            for d in range(len(lhs.divisibility))
        )
        return AxisInfo((1,) * len(const), div, const) if const else AxisInfo((), div, ())
    if op.kind is O.BinaryKind.REM and const:
        return _rem(lhs, rhs, shape_of(op.result.type), const)
    if not const:
        return None
    return AxisInfo((1,) * len(const), (1,) * len(const), const)


def _rem(lhs: AxisInfo, rhs: AxisInfo, shape: tuple[int, ...], const: tuple[int, ...]) -> AxisInfo:
    """``x % n`` with ``n`` the same along a dimension and a multiple of ``d``: the result
    drops back only where ``x`` reaches a multiple of ``n``, hence of ``d``, so a run of
    consecutive ``x`` starting at a multiple of ``g`` stays consecutive in pieces of
    ``gcd(run, g, d)``, each starting at ``x0 - q*n``, a multiple of ``gcd(g, d)``: the
    tutorial matmul's ``(pid*BM + arange) % M`` keeps 16-byte vectors when M is a multiple of
    16. As in Triton's axis analysis, ``x`` is taken to be an index, >= 0 (a negative C
    remainder would also drop right after a multiple of ``n``)."""
    contig, div = [], []
    for dim, n in enumerate(shape):
        uniform = rhs.constancy[dim] == n
        g, d = lhs.divisibility[dim], rhs.divisibility[dim]
        contig.append(math.gcd(lhs.contiguity[dim], g, d) if uniform else 1)
        div.append(math.gcd(g, d) if uniform else 1)
    return AxisInfo(tuple(contig), tuple(div), const)


def _addptr(a: AxisAnalysis, op: Op) -> AxisInfo:
    elem = element_of(op.operands[0].type)
    assert isinstance(elem, PointerType)
    return _add_like(a[op.operands[0]], a[op.operands[1]], byte_size(elem.element), False)


def _compare(a: AxisAnalysis, op: Op) -> AxisInfo | None:
    assert isinstance(op, O.CompareOp)
    lhs, rhs = a[op.operands[0]], a[op.operands[1]]
    if not lhs.contiguity:
        return None
    const = []
    for d in range(len(lhs.contiguity)):
        c = math.gcd(lhs.constancy[d], rhs.constancy[d])
        ordered = op.kind in (O.CompareKind.LT, O.CompareKind.GE)
        if ordered and rhs.constancy[d] == shape_of(op.result.type)[d]:
            # a contiguous run starting at a multiple of g stays on one side of a multiple of g
            # (x < n and x >= n only: x <= n splits such a run)
            g = math.gcd(lhs.divisibility[d], rhs.divisibility[d])
            c = max(c, min(g, lhs.contiguity[d]))
        const.append(c)
    n = len(const)
    return AxisInfo((1,) * n, (1,) * n, tuple(const))


def _logical(a: AxisAnalysis, op: Op) -> AxisInfo | None:
    infos = [a[v] for v in op.operands]
    if not infos[0].contiguity:
        return None
    const = tuple(math.gcd(*cs) for cs in zip(*(i.constancy for i in infos)))
    return AxisInfo((1,) * len(const), (1,) * len(const), const)


def _binary_or_logical(a: AxisAnalysis, op: Op) -> AxisInfo | None:
    assert isinstance(op, O.BinaryOp)
    if (
        op.kind in (O.BinaryKind.AND, O.BinaryKind.OR, O.BinaryKind.XOR)
        and str(element_of(op.result.type)) == "i1"
    ):
        return _logical(a, op)
    return _binary(a, op)


def _cast(a: AxisAnalysis, op: Op) -> AxisInfo | None:
    src = element_of(op.operands[0].type)
    dst = element_of(op.result.type)
    if (
        isinstance(src, ScalarType)
        and isinstance(dst, ScalarType)
        and src.is_int()
        and dst.is_int()
        and dst.bits >= src.bits
    ):
        return a[op.operands[0]]
    return None


_RULES: dict[type, Callable[[AxisAnalysis, Op], AxisInfo | None]] = {
    O.ConstantOp: _constant,
    O.MakeRangeOp: _make_range,
    O.SplatOp: _splat,
    O.BroadcastOp: _broadcast,
    O.ExpandDimsOp: _expand_dims,
    O.HintOp: _hint,
    O.BinaryOp: _binary_or_logical,
    O.AddPtrOp: _addptr,
    O.CompareOp: _compare,
    O.SelectOp: _logical,
    O.CastOp: _cast,
}
