"""The range of every integer value of a kernel, for a grid of at most ``grid_limit`` programs
along each axis: interval arithmetic on exact integers, where a result that could leave its type
(and wrap) is the type's whole range, so every fact holds whatever the inputs are.

What the CPU lowering uses it for: a signed ``//`` or ``%`` whose operands are never negative is
the unsigned one (the same result, which LLVM can then see through: Inductor's ``xindex % 1024``
becomes the lane index and the loop vectorizes), and ``+ - *`` that cannot overflow carry LLVM's
no-wrap flags. Index arithmetic such as ``pid * XBLOCK + arange`` cannot overflow only while the
grid is small enough, so :func:`plan` says when a program compiled for a bounded grid pays off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...ir import ops as O
from ...ir.core import Block, Op, Value
from ...ir.types import Kind, ScalarType, element_of

# grid dimensions are 0 .. 2**31 - 1 (the launchers refuse more)
GRID_MAX = 2**31 - 1


@dataclass(frozen=True)
class Interval:
    lo: int
    hi: int

    def union(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))


def type_range(t: ScalarType) -> Interval:
    if t.kind is Kind.SINT:
        return Interval(-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1)
    return Interval(0, (1 << t.bits) - 1)


def _int_type(v: Value) -> ScalarType | None:
    e = element_of(v.type)
    if isinstance(e, ScalarType) and e.kind in (Kind.SINT, Kind.UINT):
        return e
    return None


class Ranges:
    """Every integer value's interval (integers of any other origin: their type's range)."""

    def __init__(self, func: O.FuncOp, grid_limit: int = GRID_MAX):
        self.grid_limit = grid_limit
        self._known: dict[Value, Interval] = {}
        self._block(func.body)

    def __getitem__(self, v: Value) -> Interval:
        got = self._known.get(v)
        if got is not None:
            return got
        t = _int_type(v)
        return type_range(t) if t is not None else Interval(0, 1)

    def nonnegative(self, *vs: Value) -> bool:
        return all(self[v].lo >= 0 for v in vs)

    def _set(self, v: Value, r: Interval | None) -> None:
        t = _int_type(v)
        if t is None or r is None:
            return
        full = type_range(t)
        if full.lo <= r.lo and r.hi <= full.hi:  # else it may wrap: nothing is known
            self._known[v] = r

    def _block(self, block: Block) -> None:
        for op in block.ops:
            rule = _RULES.get(type(op))
            if rule is not None:
                rule(self, op)
            for region in op.regions:
                for inner in region.blocks:
                    self._block(inner)


# -- arithmetic -------------------------------------------------------------------------------


def _corners(f: Callable[[int, int], int], a: Interval, b: Interval) -> Interval:
    vals = [f(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return Interval(min(vals), max(vals))


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _div(a: Interval, b: Interval) -> Interval | None:
    # a positive divisor: truncating division is monotone in each operand
    return _corners(_trunc_div, a, b) if b.lo >= 1 else None


def _rem(a: Interval, b: Interval) -> Interval | None:
    if b.lo < 1:
        return None
    # C remainder: the dividend's sign, smaller than the divisor and than the dividend
    lo = 0 if a.lo >= 0 else max(a.lo, 1 - b.hi)
    hi = 0 if a.hi <= 0 else min(a.hi, b.hi - 1)
    return Interval(lo, hi)


def _bits_or(a: Interval, b: Interval) -> Interval | None:
    if a.lo < 0 or b.lo < 0:
        return None
    return Interval(0, (1 << max(a.hi, b.hi).bit_length()) - 1)


def _and(a: Interval, b: Interval) -> Interval | None:
    if a.lo >= 0 and b.lo >= 0:
        return Interval(0, min(a.hi, b.hi))
    if a.lo >= 0 or b.lo >= 0:
        return Interval(0, a.hi if a.lo >= 0 else b.hi)
    return None


def _shift(left: bool, width: int) -> Callable[[Interval, Interval], Interval | None]:
    def rule(a: Interval, b: Interval) -> Interval | None:
        if b.lo < 0 or b.hi >= width:
            return None  # clamped amounts: see llvm/scalar.shift
        if left:
            return _corners(lambda x, k: x << k, a, b)
        return _corners(lambda x, k: x >> k, a, b)  # >> floors: arithmetic and logical alike

    return rule


_BINARY: dict[O.BinaryKind, Callable[[Interval, Interval], Interval | None]] = {
    O.BinaryKind.ADD: lambda a, b: Interval(a.lo + b.lo, a.hi + b.hi),
    O.BinaryKind.SUB: lambda a, b: Interval(a.lo - b.hi, a.hi - b.lo),
    O.BinaryKind.MUL: lambda a, b: _corners(lambda x, y: x * y, a, b),
    O.BinaryKind.DIV: _div,
    O.BinaryKind.REM: _rem,
    O.BinaryKind.AND: _and,
    O.BinaryKind.OR: _bits_or,
    O.BinaryKind.XOR: _bits_or,
    O.BinaryKind.MIN: lambda a, b: Interval(min(a.lo, b.lo), min(a.hi, b.hi)),
    O.BinaryKind.MAX: lambda a, b: Interval(max(a.lo, b.lo), max(a.hi, b.hi)),
}


def _binary(r: Ranges, op: O.BinaryOp) -> None:
    t = _int_type(op.result)
    if t is None:
        return
    a, b = (r[v] for v in op.operands)
    if op.kind in (O.BinaryKind.SHL, O.BinaryKind.SHR):
        r._set(op.result, _shift(op.kind is O.BinaryKind.SHL, t.bits)(a, b))
    else:
        r._set(op.result, _BINARY[op.kind](a, b))


# -- everything else --------------------------------------------------------------------------


def _constant(r: Ranges, op: O.ConstantOp) -> None:
    if isinstance(op.value, int) and not isinstance(op.value, bool):
        r._set(op.result, Interval(op.value, op.value))


def _program_id(r: Ranges, op: O.ProgramIdOp) -> None:
    r._set(op.result, Interval(0, r.grid_limit - 1))


def _num_programs(r: Ranges, op: O.NumProgramsOp) -> None:
    r._set(op.result, Interval(1, r.grid_limit))


def _make_range(r: Ranges, op: O.MakeRangeOp) -> None:
    r._set(op.result, Interval(op.start, op.end - 1))


def _same(r: Ranges, op: Op) -> None:
    """Shape ops and hints: the elements are the operand's."""
    for res in op.results:
        r._set(res, r[op.operands[0]])


def _joined(r: Ranges, op: Op) -> None:
    r._set(op.result, r[op.operands[0]].union(r[op.operands[1]]))


def _select(r: Ranges, op: O.SelectOp) -> None:
    r._set(op.result, r[op.operands[1]].union(r[op.operands[2]]))


def _cast(r: Ranges, op: O.CastOp) -> None:
    # int -> int keeps the value when it fits the new type (extension follows the source's
    # signedness, so a fitting value survives it); bools become 0 or 1
    src = element_of(op.operands[0].type)
    if isinstance(src, ScalarType) and src.kind is Kind.BOOL:
        r._set(op.result, Interval(0, 1))
    elif _int_type(op.operands[0]) is not None:
        r._set(op.result, r[op.operands[0]])


def _for(r: Ranges, op: O.ForOp) -> None:
    lb, ub, step = (r[v] for v in op.operands[:3])
    t = _int_type(op.induction_var)
    if t is None or t.kind is not Kind.SINT or step.lo < 1:
        return
    # the body sees lb, then values below ub that a step past them did not wrap
    if ub.hi - 1 + step.hi <= type_range(t).hi:
        r._set(op.induction_var, Interval(lb.lo, max(lb.hi, ub.hi - 1)))


_RULES: dict[type, Callable[[Ranges, Op], None]] = {
    O.BinaryOp: _binary,  # type: ignore[dict-item]
    O.ConstantOp: _constant,  # type: ignore[dict-item]
    O.ProgramIdOp: _program_id,  # type: ignore[dict-item]
    O.NumProgramsOp: _num_programs,  # type: ignore[dict-item]
    O.MakeRangeOp: _make_range,  # type: ignore[dict-item]
    O.SplatOp: _same,
    O.BroadcastOp: _same,
    O.ExpandDimsOp: _same,
    O.ReshapeOp: _same,
    O.TransOp: _same,
    O.FlipOp: _same,
    O.SplitOp: _same,
    O.HintOp: _same,
    O.JoinOp: _joined,
    O.CatOp: _joined,
    O.SelectOp: _select,  # type: ignore[dict-item]
    O.CastOp: _cast,  # type: ignore[dict-item]
    O.ForOp: _for,  # type: ignore[dict-item]
}


# -- what the lowering takes from it ----------------------------------------------------------


@dataclass(frozen=True)
class IntFacts:
    """What one program variant may rely on: the signed divisions to emit unsigned and the
    additions, subtractions and multiplications that cannot wrap (signed, or unsigned too)."""

    unsigned_divisions: frozenset[O.BinaryOp] = frozenset()
    no_signed_wrap: frozenset[O.BinaryOp] = frozenset()
    no_unsigned_wrap: frozenset[O.BinaryOp] = frozenset()


_DIVISIONS = (O.BinaryKind.DIV, O.BinaryKind.REM)
_WRAPPING = (O.BinaryKind.ADD, O.BinaryKind.SUB, O.BinaryKind.MUL)


def _signed_binaries(func: O.FuncOp) -> Iterator[O.BinaryOp]:
    for op in func.walk():
        if isinstance(op, O.BinaryOp):
            t = _int_type(op.result)
            if t is not None and t.kind is Kind.SINT:
                yield op


def facts(func: O.FuncOp, grid_limit: int = GRID_MAX) -> IntFacts:
    r = Ranges(func, grid_limit)
    divisions, nsw, nuw = set(), set(), set()
    for op in _signed_binaries(func):
        if op.kind in _DIVISIONS:
            # x >= 0 and y >= 0: the same bits (x // 0 is all ones, x % 0 is x, y is never -1)
            if r.nonnegative(*op.operands):
                divisions.add(op)
        elif op.kind in _WRAPPING and op.result in r._known:
            nsw.add(op)
            a, b = (r[v] for v in op.operands)
            if a.lo >= 0 and b.lo >= 0 and (op.kind is not O.BinaryKind.SUB or a.lo >= b.hi):
                nuw.add(op)
    return IntFacts(frozenset(divisions), frozenset(nsw), frozenset(nuw))


@dataclass(frozen=True)
class Plan:
    """The program for any grid (``general``) and, where facts that make a difference hold
    only for smaller grids, one more for grids of at most ``small_grid`` programs per axis."""

    general: IntFacts
    small_grid: int | None = None
    small: IntFacts | None = None


def plan(func: O.FuncOp) -> Plan:
    """Compile twice only for divisions: they are what turns a scalar loop into SIMD, while
    no-wrap flags on their own do not pay for a second program."""
    general = facts(func, GRID_MAX)
    best = facts(func, 1)
    if best.unsigned_divisions == general.unsigned_divisions:
        return Plan(general)
    # the largest power of two keeping every division the single program has: facts only
    # shrink as the grid grows, so scan down from the top
    for bits in range(30, 0, -1):
        small = facts(func, 1 << bits)
        if small.unsigned_divisions == best.unsigned_divisions:
            return Plan(general, 1 << bits, small)
    return Plan(general, 1, best)
