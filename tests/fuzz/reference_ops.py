"""Reference reductions, scans and math functions (see reference.py for the conventions).

Float sums and scans are approximate: tilec and Triton add in a tree order, so the bound is
2·n·eps·Σ|x| per result lane. Math functions are compared within MATH_ULPS of a float64
evaluation rounded once."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from . import dtypes as D
from .convert import convert
from .dtypes import DType
from .numerics import as_ints, round_float, wrap
from .program import Node

MATH_ULPS = {"exp": 2, "log": 2, "sin": 2, "cos": 2, "sqrt": 1, "exp2": 2, "log2": 2,
             "rsqrt": 2, "erf": 4, "sqrt_rn": 0, "sigmoid": 4, "div_rn": 0, "fma": 1}  # fmt: skip
EPS = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}


def _move(x: np.ndarray, axis: int | None) -> np.ndarray:
    """``x`` with the reduced axis last (all axes flattened for axis=None)."""
    return x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)


def _place(r: np.ndarray, n: Node, axis: int | None) -> np.ndarray:
    return np.asarray(r).reshape(n.shape)


def reduce_op(n: Node, x: np.ndarray, u: np.ndarray, src: DType, ev: Any) -> tuple:
    kind, axis, _, _ = n.attr
    t = n.dtype
    if kind in ("sum", "max", "min"):
        x, u2 = convert(x, src, t)
        u = u | u2
    xs, us = _move(x, axis), _move(u, axis)
    undefined = _place(us.any(axis=-1), n, axis)
    if kind == "argmax" or kind == "argmin":
        return _place(_arg_extreme(xs, kind == "argmax"), n, axis), undefined
    if t.is_int and kind in ("sum", "xor_sum"):
        ints = as_ints(xs)
        if kind == "sum":
            r = ints.sum(axis=-1)
        else:
            r = (
                np.bitwise_xor.reduce(ints, axis=-1)
                if ints.shape[-1]
                else np.zeros(ints.shape[:-1], object)
            )
        return _place(wrap(np.asarray(r, dtype=object), t), n, axis), undefined
    if kind in ("max", "min"):
        if t.is_float:
            f = np.fmax if kind == "max" else np.fmin
            r = f.reduce(xs, axis=-1)
            pos = ((xs == 0) & ~np.signbit(xs)).any(axis=-1)
            zero = (r == 0) & pos & ((xs == 0) & np.signbit(xs)).any(axis=-1)
            return _place(r, n, axis), undefined | _place(zero, n, axis)
        r = xs.max(axis=-1) if kind == "max" else xs.min(axis=-1)
        return _place(r, n, axis), undefined
    # float sum: approximate
    w = xs.astype(np.float64)
    with np.errstate(all="ignore"):
        r = w.sum(axis=-1)
        bound = np.abs(w).sum(axis=-1)
    ev.atol = _place(2 * w.shape[-1] * EPS[t.name] * bound + _tiny(t), n, axis)
    big = ~np.isfinite(bound) | (bound > D.FLOAT_FORMAT[t.name][2] / 4)
    return _place(round_float(r, t), n, axis), undefined | _place(big, n, axis)


def dot_op(n: Node, args: list[tuple[np.ndarray, np.ndarray]], ev: Any) -> tuple:
    """``acc + a @ b`` (see dot_sum)."""
    return dot_sum(n.dtype, [(args[0], args[1])], args[2] if len(args) > 2 else None, ev)


Pair = tuple[np.ndarray, np.ndarray]  # values, undefined lanes


def dot_sum(t: DType, products: list[tuple[Pair, Pair]], acc: Pair | None, ev: Any) -> tuple:
    """``acc + a0 @ b0 + a1 @ b1 + ...``: exact for int8 (int32 wraps), else approximate like a
    float sum (any order of the products and the accumulator, each product exact or fused)."""
    undefined = np.zeros((), bool) if acc is None else acc[1]
    for (_, ua), (_, ub) in products:
        undefined = undefined | ua.any(axis=-1)[..., :, None] | ub.any(axis=-2)[..., None, :]
    if t.is_int:
        r = sum(np.matmul(as_ints(a), as_ints(b)) for (a, _), (b, _) in products)
        if acc is not None:
            r = r + as_ints(acc[0])
        return wrap(r, t), undefined
    r, bound = np.zeros(undefined.shape), np.zeros(undefined.shape)
    terms = 0
    # the magnitudes of the finite terms: infinities and NaNs make the result an infinity or
    # NaN in any order, unless finite partial sums overflow first (then it is left undefined)
    with np.errstate(all="ignore"):
        for (a, _), (b, _) in products:
            wa, wb = a.astype(np.float64), b.astype(np.float64)
            r = r + np.matmul(wa, wb)
            bound = bound + np.matmul(*(np.where(np.isfinite(w), np.abs(w), 0.0) for w in (wa, wb)))
            terms += a.shape[-1]
        if acc is not None:
            w = acc[0].astype(np.float64)
            r, bound, terms = r + w, bound + np.where(np.isfinite(w), np.abs(w), 0.0), terms + 1
    # float64 reference sums round too: for an fp64 dot they count as much as the kernel's
    ev.atol = (4 if t == D.F64 else 2) * terms * EPS[t.name] * bound + _tiny(t)
    big = ~(bound <= D.FLOAT_FORMAT[t.name][2] / 4)
    return round_float(r, t), undefined | big


def _arg_extreme(xs: np.ndarray, largest: bool) -> np.ndarray:
    """The first index of the largest (smallest) number along the last axis; NaNs are skipped
    and a row of NaNs gives 0 (docs/language/semantics.md, after Triton's argmax tests)."""
    w = xs.astype(np.float64) if xs.dtype.kind == "f" else as_ints(xs)
    valid = ~np.isnan(w.astype(np.float64)) if xs.dtype.kind == "f" else np.ones(xs.shape, bool)
    out = np.zeros(xs.shape[:-1], dtype=np.int32)
    for index in np.ndindex(*xs.shape[:-1]):
        row, ok = w[index], valid[index]
        if ok.any():
            best = max(row[ok]) if largest else min(row[ok])
            out[index] = int(np.flatnonzero(ok & (row == best))[0])
    return out


def _tiny(t: DType) -> float:
    return 2.0 ** (D.FLOAT_FORMAT[t.name][1] - D.FLOAT_FORMAT[t.name][0] + 2)


def scan_op(n: Node, x: np.ndarray, u: np.ndarray, src: DType, ev: Any) -> tuple:
    kind, axis, reverse = n.attr
    t = n.dtype
    x, u2 = convert(x, src, t)
    u = u | u2
    xs, us = np.moveaxis(x, axis, -1), np.moveaxis(u, axis, -1)
    if reverse:
        xs, us = xs[..., ::-1], us[..., ::-1]
    undefined = np.logical_or.accumulate(us, axis=-1)
    if t.is_float and kind in ("cumsum", "cumprod"):
        w = xs.astype(np.float64)
        with np.errstate(all="ignore"):
            r = np.cumsum(w, axis=-1) if kind == "cumsum" else np.cumprod(w, axis=-1)
            mag = np.cumsum(np.abs(w), -1) if kind == "cumsum" else np.abs(r)
        steps = np.arange(1, w.shape[-1] + 1)
        atol = 2 * steps * EPS[t.name] * mag + _tiny(t)
        big = ~np.isfinite(mag) | (mag > D.FLOAT_FORMAT[t.name][2] / 4)
        if kind == "cumprod":  # products near the underflow threshold lose relative accuracy
            big |= (np.abs(r) < 2.0 ** (D.FLOAT_FORMAT[t.name][1] + 8)) & (r != 0)
            big |= np.logical_or.accumulate(~np.isfinite(w), axis=-1)
            # a tree order multiplies other runs of the prefix first: where one of them leaves
            # the format's range (FLT_MAX times a small prefix), the order decides the value
            hi, lo = _run_product_extremes(w)
            big |= (hi > math.log2(D.FLOAT_FORMAT[t.name][2] / 4)) | (
                lo < D.FLOAT_FORMAT[t.name][1] + 8
            )
        r = round_float(r, t)
        undefined |= big
        ev.atol = _back(atol, axis, reverse)
    elif kind == "scan_max":
        if t.is_float:
            r = np.fmax.accumulate(xs, axis=-1)
            pos = np.logical_or.accumulate((xs == 0) & ~np.signbit(xs), axis=-1)
            neg = np.logical_or.accumulate((xs == 0) & np.signbit(xs), axis=-1)
            zero = (r == 0) & pos & neg
            undefined |= zero
        else:
            r = np.maximum.accumulate(xs, axis=-1)
    else:
        ints = as_ints(xs)
        f = {"cumsum": np.add, "scan_add": np.add, "cumprod": np.multiply,
             "scan_xor": np.bitwise_xor, "scan_or": np.bitwise_or}[kind]  # fmt: skip
        r = wrap(f.accumulate(ints, axis=-1), t)
    return _back(r, axis, reverse), _back(undefined, axis, reverse)


def _run_product_extremes(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each prefix along the last axis: log2 of the largest and of the smallest non-zero
    magnitude of a product of consecutive elements within it (Kadane's scan over log2|w|)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lg = np.log2(np.abs(w))  # -inf for zeros; non-finite inputs are flagged by the caller
    hi, lo = np.empty_like(lg), np.empty_like(lg)
    run_hi = best_hi = np.full(lg.shape[:-1], -np.inf)
    run_lo = best_lo = np.full(lg.shape[:-1], np.inf)
    for k in range(lg.shape[-1]):
        v = lg[..., k]
        zero = np.isneginf(v)  # a zero ends a run: its products are exactly 0 in any order
        with np.errstate(invalid="ignore"):  # inf + -inf where a zero follows: not selected
            run_hi = np.maximum(v, run_hi + v)
            run_lo = np.where(zero, np.inf, np.minimum(v, run_lo + v))
        best_hi, best_lo = np.maximum(best_hi, run_hi), np.minimum(best_lo, run_lo)
        hi[..., k], lo[..., k] = best_hi, best_lo
    return hi, lo


def _back(r: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        r = r[..., ::-1]
    return np.ascontiguousarray(np.moveaxis(r, -1, axis))


def math_fn(fn: str, args: list[np.ndarray], t: DType) -> np.ndarray:
    w = [a.astype(np.float64) for a in args]
    x = w[0]
    with np.errstate(all="ignore"):
        if fn == "fma":
            r = _fma(*w)
        elif fn == "div_rn":
            r = x / w[1]
        elif fn == "erf":
            r = np.array([math.erf(v) for v in x.reshape(-1)]).reshape(x.shape)
        elif fn == "sigmoid":
            # Triton's formula 1 / (1 + exp(-x)) in the computation type: where exp(-x)
            # overflows it (x below about -88.7 in fp32) the result is 0, not a subnormal
            e = np.exp(-x)
            if t != D.F64:
                top = 65504.0 if t == D.F16 else float(np.finfo(np.float32).max)
                e = np.where(e > top, np.inf, e)
            r = 1.0 / (1.0 + e)
        elif fn == "rsqrt":
            r = 1.0 / np.sqrt(x)
        else:
            r = getattr(np, {"sqrt_rn": "sqrt"}.get(fn, fn))(x)
    return round_float(r, t)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a·b + c rounded once to float64 (exact rational arithmetic for finite lanes)."""
    with np.errstate(all="ignore"):
        r = a * b + c
    out = r.reshape(-1).copy()
    for i, (p, q, s) in enumerate(zip(a.reshape(-1), b.reshape(-1), c.reshape(-1))):
        if np.isfinite(p) and np.isfinite(q) and np.isfinite(s):
            exact = Fraction(float(p)) * Fraction(float(q)) + Fraction(float(s))
            try:
                out[i] = float(exact) if exact else (p * q + s)
            except OverflowError:
                out[i] = math.inf if exact > 0 else -math.inf  # beyond float64's range
    return out.reshape(a.shape)
