"""Correctly rounded fp32 division of a large tile without a slow-path call per quotient.

ptxas expands each PTX ``div.rn.f32`` into a fast path (reciprocal, three FMAs), a range check
and a call to a slow-path subroutine. Assembled as relocatable code, as nvJitLink always does,
each of those calls follows the ABI, and with 64 quotients per thread (a softmax row of 16384
on 8 warps) the kernel took 172 registers where ptxas alone gives 117.

Here the quotients go in groups of :data:`GROUP`. Each group checks its operands first (a
range narrower than the hardware's own check) and takes one branch: the fast path inline, the
very sequence ptxas emits and exact wherever it is taken, or ``div.rn.f32`` for the whole group
(subnormal or huge operands, infinities, NaN), which no row of ordinary data reaches. Either
way each quotient has the bits of ``div.rn.f32``: ``x / y`` rounded to nearest even.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ..llvm import intrinsics as llvm_intr
from . import intrinsics as intr
from .types import F32, I32

# unbiased exponents for which the fast path is exact: the reciprocal and the quotient are
# normal, the quotient cannot overflow and the remainder x - y*q is a multiple of 2**-149
_X_EXP = (-96, 127)
_Y_EXP = (-96, 96)
_Q_EXP = (-96, 125)  # exponent of x minus exponent of y

# quotients per branch. Measured with ptxas 13.0 in relocatable mode on the softmax row
# (8192 and 16384 fp32 on 8 warps): groups of 4 or 8 left 92/156 registers, 16 gives 76/112
GROUP = 16


def _field_range(lo: int, hi: int) -> tuple[int, int]:
    return lo + 127, hi + 127


def _magnitude(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.and_(b.bitcast(x, I32), ir.Constant(I32, 0x7FFFFFFF))


def _x_bounds(b: ir.IRBuilder, y: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """Whether ``y`` is in range, and the lowest and highest magnitude bits of an ``x`` in
    range for it (computed once per divisor: a row's sum is shared by the row)."""
    c = lambda v: ir.Constant(I32, v)  # noqa: E731
    y_field = b.lshr(_magnitude(b, y), c(23))
    y_lo, y_hi = _field_range(*_Y_EXP)
    ok_y = b.icmp_unsigned("<=", b.sub(y_field, c(y_lo)), c(y_hi - y_lo))
    x_lo, x_hi = _field_range(*_X_EXP)
    lo = b.add(y_field, c(_Q_EXP[0]))
    lo = b.select(b.icmp_signed("<", lo, c(x_lo)), c(x_lo), lo)
    hi = b.add(y_field, c(_Q_EXP[1]))
    hi = b.select(b.icmp_signed(">", hi, c(x_hi)), c(x_hi), hi)
    return ok_y, b.shl(lo, c(23)), b.or_(b.shl(hi, c(23)), c(0x7FFFFF))


class _Extremes:
    """The x magnitudes of one divisor, reduced to two numbers: every x is a zero or in
    ``[lo, hi]`` exactly when ``min(|x| - 1) >= lo - 1`` and ``max(|x|) <= hi`` (unsigned; a
    zero wraps to the largest ``|x| - 1``; ``lo`` >= 1). A min and a max per x, where range
    checks per x made long chains of i1 logic on float bits, which InstCombine took 50 ms
    over in the attention kernel's epilogue."""

    def __init__(self, b: ir.IRBuilder, x: ir.Value) -> None:
        mx = _magnitude(b, x)
        self.low, self.high = b.sub(mx, ir.Constant(I32, 1)), mx

    def add(self, b: ir.IRBuilder, x: ir.Value) -> None:
        mx = _magnitude(b, x)
        low = b.sub(mx, ir.Constant(I32, 1))
        self.low = b.select(b.icmp_unsigned("<", low, self.low), low, self.low)
        self.high = b.select(b.icmp_unsigned(">", mx, self.high), mx, self.high)

    def inside(self, b: ir.IRBuilder, bounds: tuple[ir.Value, ir.Value, ir.Value]) -> ir.Value:
        ok_y, lo, hi = bounds
        low_ok = b.icmp_unsigned(">=", self.low, b.sub(lo, ir.Constant(I32, 1)))
        return b.and_(ok_y, b.and_(low_ok, b.icmp_unsigned("<=", self.high, hi)))


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return llvm_intr.call(b, "fma", [x, y, z])


def _reciprocal(b: ir.IRBuilder, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(-y, 1/y after one Newton step) for the fast path."""
    neg_y = b.fneg(y)
    # inline asm, not llvm.nvvm.rcp.approx.ftz.f: nvptx.py vets every intrinsic callee
    r0 = intr.asm(b, F32, "rcp.approx.ftz.f32 $0, $1;", "=f,f", [y], side_effect=False)
    return neg_y, _fma(b, r0, _fma(b, neg_y, r0, ir.Constant(F32, 1.0)), r0)


def _fast_quotient(b: ir.IRBuilder, x: ir.Value, recip: tuple[ir.Value, ir.Value]) -> ir.Value:
    """x / y within the checked range: ptxas's fast path of div.rn.f32 (one Newton step on the
    reciprocal, one correction of the quotient). The sign is the first product's, which is
    right also for a zero x (the correction would turn -0 / y into +0)."""
    neg_y, r = recip
    q0 = b.fmul(x, r)
    q = _fma(b, _fma(b, neg_y, q0, x), r, q0)
    return llvm_intr.call(b, "copysign", [q, q0])


def divide(b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
    """Correctly rounded ``x / y`` for every fp32 pair, in order."""
    out: list[ir.Value] = []
    for start in range(0, len(pairs), GROUP):
        out += _divide_group(b, pairs[start : start + GROUP])
    return out


def _divide_group(b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
    """One branch for the group, decided before any quotient, so that each arm holds only the
    operands and its own quotients. A divisor shared by several quotients (a row's sum) has
    its bounds and reciprocal computed once."""
    divisors: dict[int, tuple[ir.Value, _Extremes]] = {}
    for x, y in pairs:
        if id(y) in divisors:
            divisors[id(y)][1].add(b, x)
        else:
            divisors[id(y)] = (y, _Extremes(b, x))
    ok = None
    for y, extremes in divisors.values():
        inside = extremes.inside(b, _x_bounds(b, y))
        ok = inside if ok is None else b.and_(ok, inside)
    assert ok is not None
    fast_bb, exact_bb = b.append_basic_block("fdiv.fast"), b.append_basic_block("fdiv.exact")
    done = b.append_basic_block("fdiv.done")
    b.cbranch(ok, fast_bb, exact_bb)
    b.position_at_end(fast_bb)
    recips: dict[int, tuple[ir.Value, ir.Value]] = {}
    fast = []
    for x, y in pairs:
        if id(y) not in recips:
            recips[id(y)] = _reciprocal(b, y)
        fast.append(_fast_quotient(b, x, recips[id(y)]))
    fast_end = b.block
    b.branch(done)
    b.position_at_end(exact_bb)
    exact = [b.fdiv(x, y) for x, y in pairs]  # div.rn.f32
    exact_end = b.block
    b.branch(done)
    b.position_at_end(done)
    out = []
    for q_fast, q_exact in zip(fast, exact):
        phi = b.phi(F32)
        phi.add_incoming(q_fast, fast_end)
        phi.add_incoming(q_exact, exact_end)
        out.append(phi)
    return out
