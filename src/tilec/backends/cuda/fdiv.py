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


def _in_range(b: ir.IRBuilder, v: ir.Value, lo: int, hi: int) -> ir.Value:
    shifted = b.sub(v, ir.Constant(I32, lo)) if lo else v
    return b.icmp_unsigned("<=", shifted, ir.Constant(I32, hi - lo))


def _exponent(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """The unbiased exponent of an fp32 value (-127 for zeros and subnormals)."""
    field = b.and_(b.lshr(b.bitcast(x, I32), ir.Constant(I32, 23)), ir.Constant(I32, 0xFF))
    return b.sub(field, ir.Constant(I32, 127))


def _fast_path_applies(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    ex, ey = _exponent(b, x), _exponent(b, y)
    ok_q = b.and_(_in_range(b, ex, *_X_EXP), _in_range(b, b.sub(ex, ey), *_Q_EXP))
    magnitude = b.and_(b.bitcast(x, I32), ir.Constant(I32, 0x7FFFFFFF))
    x_zero = b.icmp_unsigned("==", magnitude, ir.Constant(I32, 0))
    return b.and_(_in_range(b, ey, *_Y_EXP), b.or_(x_zero, ok_q))


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return intr.llvm_intrinsic(b, "fma", [x, y, z])


def _fast_quotient(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """x / y within the checked range: ptxas's fast path of div.rn.f32 (one Newton step on the
    reciprocal, one correction of the quotient). The sign is the first product's, which is
    right also for a zero x (the correction would turn -0 / y into +0)."""
    neg_y = b.fneg(y)
    # inline asm, not llvm.nvvm.rcp.approx.ftz.f: codegen vets every intrinsic callee
    r0 = intr.asm(b, F32, "rcp.approx.ftz.f32 $0, $1;", "=f,f", [y], side_effect=False)
    r = _fma(b, r0, _fma(b, neg_y, r0, ir.Constant(F32, 1.0)), r0)
    q0 = b.fmul(x, r)
    q = _fma(b, _fma(b, neg_y, q0, x), r, q0)
    return intr.llvm_intrinsic(b, "copysign", [q, q0])


def divide(b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
    """Correctly rounded ``x / y`` for every fp32 pair, in order."""
    out: list[ir.Value] = []
    for start in range(0, len(pairs), GROUP):
        out += _divide_group(b, pairs[start : start + GROUP])
    return out


def _divide_group(b: ir.IRBuilder, pairs: Sequence[tuple[ir.Value, ir.Value]]) -> list[ir.Value]:
    """One branch for the group, decided before any quotient, so that each arm holds only the
    operands and its own quotients."""
    ok = _fast_path_applies(b, *pairs[0])
    for x, y in pairs[1:]:
        ok = b.and_(ok, _fast_path_applies(b, x, y))
    fast_bb, exact_bb = b.append_basic_block("fdiv.fast"), b.append_basic_block("fdiv.exact")
    done = b.append_basic_block("fdiv.done")
    b.cbranch(ok, fast_bb, exact_bb)
    b.position_at_end(fast_bb)
    fast = [_fast_quotient(b, x, y) for x, y in pairs]
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
