"""Argument reduction for fp32 sin/cos over the whole fp32 range: x = q*pi/2 + r, |r| <~ pi/4.

Branch-free so loops over sin/cos still vectorize: every lane computes both reductions and a
select picks one.

- |x| < 2**20: Cody-Waite in fp64 with pi/2 in three 33-bit parts. With |q| < 2**20 every
  product q*part is exact and x - q*part1 is exact too, so r is correct to a few fp64 ulp of
  itself even when x is close to a multiple of pi/2.
- |x| >= 2**20: Payne-Hanek. x = m * 2**e with a 24-bit integer m, and x*2/pi mod 4 only needs
  the 96 bits of 2/pi from weight 2**(1-e) down (the bits above give multiples of 4). The window
  is cut (selects and shifts) out of 224 bits of 2/pi by x's exponent; m times the window is
  done in 64-bit integer pieces, and the top two bits of the product are the quadrant. The
  truncations (window and fraction) cost less than 2**-60 absolute in r, far below the
  smallest |r| any fp32 input reaches (about 2**-28).
"""

from __future__ import annotations

import functools

from llvmlite import ir

from .intrinsics import call_unary
from .types import f32, i32

f64 = ir.DoubleType()
i64 = ir.IntType(64)

_CW_LIMIT = 2.0**20
_PH_FIRST_EXP = 147  # biased fp32 exponent of 2**20: the first the windows must cover
_PH_LAST_EXP = 254  # largest finite


def _atan_inv(n: int, one: int) -> int:
    """atan(1/n) * one, in integers (Taylor series)."""
    total, term, k, sign = 0, one // n, 1, 1
    while term:
        total += sign * (term // k)
        term //= n * n
        k += 2
        sign = -sign
    return total


@functools.cache
def _pi_scaled(bits: int) -> int:
    """floor(pi * 2**bits), give or take a unit (Machin's formula with 32 guard bits)."""
    one = 1 << (bits + 32)
    return (16 * _atan_inv(5, one) - 4 * _atan_inv(239, one)) >> 32


@functools.cache
def pio2_parts() -> tuple[float, float, float]:
    """pi/2 as p1 + p2 + p3: p1 and p2 with 33 significant bits, p3 the rounded rest."""
    k = 200
    half_pi = _pi_scaled(k - 1)  # pi/2 * 2**k
    p1 = half_pi >> (k - 32)  # pi/2 is in [1, 2): 33 bits down to weight 2**-32
    rest = half_pi - (p1 << (k - 32))
    p2 = rest >> (k - 65)
    rest -= p2 << (k - 65)
    return p1 / 2.0**32, p2 / 2.0**65, rest / 2.0**k


@functools.cache
def two_over_pi_words() -> tuple[int, ...]:
    """2/pi after five zero bits, as four 64-bit words (high first, as signed i64 values):
    219 fraction bits, then zeros.

    For x = m * 2**e with biased exponent E, bits E-147 .. E-52 of this string (counted from
    the top, from 0) are the 96-bit window floor(2/pi * 2**(e + 94)) mod 2**96: the bits of
    2/pi of weights 2**(1-e) .. 2**(-94-e), read with two integer bits."""
    k = 320
    two_over_pi = (1 << (2 * k + 1)) // _pi_scaled(k)  # 2/pi * 2**k
    bits = (two_over_pi >> (k - 219)) << 32
    words = [(bits >> (256 - 64 * (j + 1))) & (2**64 - 1) for j in range(4)]
    return tuple(w - 2**64 if w >= 2**63 else w for w in words)


def _k64(v: int) -> ir.Constant:
    return ir.Constant(i64, v)


def _payne_hanek(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(r in fp64, quadrant as i32) for |x|; valid where |x| >= 2**20 (other lanes: garbage)."""
    bits = b.bitcast(x, i32)
    biased = b.and_(b.lshr(bits, ir.Constant(i32, 23)), ir.Constant(i32, 0xFF))
    lo_e, hi_e = ir.Constant(i32, _PH_FIRST_EXP), ir.Constant(i32, _PH_LAST_EXP)
    biased = b.select(b.icmp_signed("<", biased, lo_e), lo_e, biased)
    biased = b.select(b.icmp_signed(">", biased, hi_e), hi_e, biased)  # inf/NaN lanes
    start = b.zext(b.sub(biased, lo_e), i64)  # the window's first bit: 0 .. 107
    second, shift = b.icmp_unsigned(">=", start, _k64(64)), b.and_(start, _k64(63))
    w = two_over_pi_words()
    # the three words holding the window, picked with selects: a table gather does not
    # vectorize on AVX2, and selects do
    a, m1, c = (b.select(second, _k64(w[j + 1]), _k64(w[j])) for j in range(3))
    back = b.sub(_k64(63), shift)  # (v >> 1) >> (63 - s): no shift by 64 when s is 0

    def funnel(hi: ir.Value, lo: ir.Value) -> ir.Value:
        return b.or_(b.shl(hi, shift), b.lshr(b.lshr(lo, _k64(1)), back))

    first64, next64 = funnel(a, m1), funnel(m1, c)
    low32 = _k64(0xFFFFFFFF)
    y2, y1, y0 = b.lshr(first64, _k64(32)), b.and_(first64, low32), b.lshr(next64, _k64(32))
    m = b.zext(b.or_(b.and_(bits, ir.Constant(i32, 0x7FFFFF)), ir.Constant(i32, 0x800000)), i64)
    a2, a1, a0 = b.mul(m, y2), b.mul(m, y1), b.mul(m, y0)  # each < 2**56: no overflow
    mid = b.add(b.and_(a1, low32), b.lshr(a0, _k64(32)))
    hi = b.add(b.add(a2, b.lshr(a1, _k64(32))), b.lshr(mid, _k64(32)))
    # top 64 of the 96 product bits (mod 2**96: the shift drops what lies above)
    top = b.or_(b.shl(hi, _k64(32)), b.and_(mid, low32))
    # rounding the quadrant to nearest leaves the fraction in [-1/2, 1/2): read it signed
    q = b.trunc(b.lshr(b.add(top, _k64(1 << 61)), _k64(62)), i32)
    # the fraction to 2**-62: the dropped bits weigh less than 2**-61 in r, and the smallest |r|
    # of an fp32 input is about 2**-28
    frac = b.shl(top, _k64(2))
    # i64 -> f64 has no SIMD instruction before AVX-512: convert in 32-bit pieces instead
    f_hi = b.sitofp(b.trunc(b.ashr(frac, _k64(32)), i32), f64)
    f_lo = b.sitofp(b.trunc(b.lshr(b.and_(frac, low32), _k64(1)), i32), f64)
    f = b.fadd(b.fmul(f_hi, ir.Constant(f64, 2.0**-32)), b.fmul(f_lo, ir.Constant(f64, 2.0**-63)))
    p1, p2, _ = pio2_parts()
    return b.fmul(f, ir.Constant(f64, p1 + p2)), q


def _cody_waite(b: ir.IRBuilder, xd: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(r in fp64, quadrant as i32) for |x| < 2**20."""
    p1, p2, p3 = pio2_parts()
    n = call_unary(b, "rint", b.fmul(xd, ir.Constant(f64, 1.0 / (p1 + p2))))
    r = b.fsub(xd, b.fmul(n, ir.Constant(f64, p1)))  # exact
    r = b.fsub(r, b.fmul(n, ir.Constant(f64, p2)))  # the product is exact
    r = b.fsub(r, b.fmul(n, ir.Constant(f64, p3)))
    return r, b.fptosi(n, i32)


def sincos_reduce(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(r, r*r, quadrant) in fp32 with x = quadrant*pi/2 + r, for every finite fp32 x."""
    ax = call_unary(b, "fabs", x)
    big = b.fcmp_unordered("uge", ax, ir.Constant(f32, _CW_LIMIT))  # NaN too
    small_x = b.select(big, ir.Constant(f32, 0.0), x)  # keeps fptosi below in range
    r_cw, q_cw = _cody_waite(b, b.fpext(small_x, f64))
    r_ph, q_ph = _payne_hanek(b, ax)
    neg = b.fcmp_ordered("<", x, ir.Constant(f32, 0.0))
    r_ph = b.select(neg, b.fneg(r_ph), r_ph)
    q_ph = b.select(neg, b.neg(q_ph), q_ph)  # only q mod 4 matters
    r = b.fptrunc(b.select(big, r_ph, r_cw), f32)
    q = b.select(big, q_ph, q_cw)
    return r, b.fmul(r, r), q
