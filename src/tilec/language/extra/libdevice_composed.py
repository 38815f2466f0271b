"""libdevice functions with no MathOp of their own, written in tl from those that have one.

``llrint`` (round half to even, then to int64) is what Inductor prints for ``RoundToInt`` in
index expressions. ``cyl_bessel_i0``/``cyl_bessel_i1`` (modified Bessel functions of the first
kind) are summed in fp64 from their power series up to |x| = 30 and from their asymptotic
expansion beyond, each truncated where its terms fall below 1e-17 of the sum.
"""

# mypy: ignore-errors
# (tl code: run by the frontend, where tensors have methods mypy cannot see)
from __future__ import annotations

from ...frontend.builtins_math import math_function
from .. import core as tl
from ..library import library

_rint = math_function("rint")  # libdevice.rint: the MathOp itself


@library
def llrint(x):
    return _rint(x).to(tl.int64)


_SERIES_UP_TO = 30.0
_SERIES_TERMS = 64  # at |x| = 30 the 64th term is ~1e-23 of the sum
_ASYMPTOTIC_TERMS = 16  # beyond |x| = 30 the 16th term is below ~1e-17


@library
def _bessel_i(x, ORDER: tl.constexpr):
    """I_ORDER(|x|) in fp64, for ORDER 0 or 1."""
    a = tl.abs(x.to(tl.float64))
    # power series: sum over k of (a/2)^(2k + ORDER) / (k! (k + ORDER)!)
    q = a * a * 0.25
    term = a * 0.0 + 1.0 if ORDER == 0 else a * 0.5
    series = term
    for k in tl.static_range(1, _SERIES_TERMS):
        term = term * q / (k * (k + ORDER))
        series += term
    # asymptotic expansion: e^a / sqrt(2 pi a) * sum over k of t_k, t_0 = 1,
    # t_k = t_(k-1) * ((2k - 1)^2 - 4 ORDER^2) / (8 k a)
    t = a * 0.0 + 1.0
    tail = t
    for k in tl.static_range(1, _ASYMPTOTIC_TERMS):
        t = t * ((2 * k - 1) * (2 * k - 1) - 4 * ORDER * ORDER) / (8.0 * k * a)
        tail += t
    # e^a / sqrt(2 pi a) as one exponential: finite up to where I_n itself overflows
    large = tl.exp(a - 0.5 * tl.log(6.283185307179586 * a)) * tail
    large = tl.where(a == float("inf"), a, large)  # (inf - inf in the exponent)
    return tl.where(a <= _SERIES_UP_TO, series, large)


@library
def cyl_bessel_i0(x):
    return _bessel_i(x, 0).to(x.dtype)


@library
def cyl_bessel_i1(x):
    r = _bessel_i(x, 1)
    return tl.where(x < 0, -r, r).to(x.dtype)


COMPOSED = {"llrint": llrint, "cyl_bessel_i0": cyl_bessel_i0, "cyl_bessel_i1": cyl_bessel_i1}
