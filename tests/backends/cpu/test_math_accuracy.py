"""The polynomial fp32 math (exp, log, sin, ...): ulp error over the whole range, special values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tilec.ir import types as T

from .support import elementwise_kernel, run_elementwise

REFERENCE = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "erf": np.vectorize(math.erf),
}  # fmt: skip
RANGES = {
    "exp": (-104, 88.7), "exp2": (-150, 127.9), "log": (1e-30, 1e30), "log2": (1e-30, 1e30),
    "sin": (-1e5, 1e5), "cos": (-1e5, 1e5), "tanh": (-12, 12), "erf": (-5, 5),
}  # fmt: skip
MAX_ULP = {"exp": 2, "exp2": 2, "log": 2, "log2": 3, "sin": 3, "cos": 3, "tanh": 3, "erf": 3}


def _ulp_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    want32 = want.astype(np.float32)
    spacing = np.spacing(np.abs(want32)).astype(np.float64)
    spacing = np.maximum(spacing, np.float64(np.finfo(np.float32).smallest_subnormal))
    return np.abs(got.astype(np.float64) - want) / spacing


@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_ulp_error(fn: str) -> None:
    k = elementwise_kernel(lambda b, x: b.math(fn, x), 1, T.float32, T.float32)
    lo, hi = RANGES[fn]
    rng = np.random.default_rng()
    if lo > 0:
        x = np.exp(rng.uniform(math.log(lo), math.log(hi), 20000)).astype(np.float32)
    else:
        x = rng.uniform(lo, hi, 20000).astype(np.float32)
    x[:5] = [0.5, 1.0, 2.0, 1e-3, 3.0]
    got = run_elementwise(k, x, out_dtype=np.float32)
    want = REFERENCE[fn](x.astype(np.float64))
    err = _ulp_error(got, want)
    assert err.max() <= MAX_ULP[fn], (fn, x[err.argmax()], got[err.argmax()], want[err.argmax()])


@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_special_values(fn: str) -> None:
    k = elementwise_kernel(lambda b, x: b.math(fn, x), 1, T.float32, T.float32)
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-40, -1e-40, 1e38, -1e38], np.float32)
    got = run_elementwise(k, x, out_dtype=np.float32)
    with np.errstate(all="ignore"):
        want = REFERENCE[fn](x.astype(np.float64)).astype(np.float32)
    same = (
        (got == want)
        | (np.isnan(got) & np.isnan(want))
        | (np.abs(got - want) <= 2e-7 * np.abs(want))
    )
    if fn in ("sin", "cos"):  # |x| = 1e38 is past the reduction's range; only require |v| <= 1
        same[7:] = np.abs(got[7:]) <= 1
    assert same.all(), list(zip(x, got, want))


def test_fp16_and_bf16_compute_in_fp32() -> None:
    k = elementwise_kernel(lambda b, x: b.math("exp", x), 1, T.float16, T.float16)
    x = np.linspace(-10, 10, 1001).astype(np.float16)
    got = run_elementwise(k, x, out_dtype=np.float16)
    want = np.exp(x.astype(np.float64)).astype(np.float16)
    assert np.all(
        np.abs(got.astype(np.float64) - want) <= np.spacing(np.abs(want)).astype(np.float64)
    )


LIBM = {
    "asin": (np.arcsin, 1, (-1, 1)), "atan2": (np.arctan2, 2, (-5, 5)),
    "pow": (np.power, 2, (0.1, 4)), "cbrt": (np.cbrt, 1, (-100, 100)),
    "lgamma": (np.vectorize(math.lgamma), 1, (0.1, 30)), "erf": (np.vectorize(math.erf), 1, (-4, 4)),
    "log1p": (np.log1p, 1, (-0.5, 10)), "sinh": (np.sinh, 1, (-10, 10)),
}  # fmt: skip


@pytest.mark.parametrize("fn", sorted(LIBM))
@pytest.mark.parametrize("dtype", [T.float32, T.float64])
def test_libm_long_tail(fn: str, dtype: T.ScalarType) -> None:
    ref, arity, (lo, hi) = LIBM[fn]
    npt = np.float32 if dtype is T.float32 else np.float64
    k = elementwise_kernel(lambda b, *xs: b.math(fn, *xs), arity, dtype, dtype)
    rng = np.random.default_rng()
    xs = [rng.uniform(lo, hi, 1000).astype(npt) for _ in range(arity)]
    got = run_elementwise(k, *xs, out_dtype=npt)
    want = ref(*(x.astype(np.float64) for x in xs))
    np.testing.assert_allclose(got, want, rtol=1e-5 if npt is np.float32 else 1e-12, atol=1e-6)


@pytest.mark.parametrize("fn", ["sin", "cos"])
def test_sin_cos_large_arguments(fn: str) -> None:
    """Past 1e5 the reduction is not exact: small absolute error, always bounded (documented)."""
    k = elementwise_kernel(lambda b, x: b.math(fn, x), 1, T.float32, T.float32)
    x = np.random.default_rng().uniform(-1e6, 1e6, 20000).astype(np.float32)
    got = run_elementwise(k, x, out_dtype=np.float32)
    assert np.abs(got - REFERENCE[fn](x.astype(np.float64))).max() < 1e-5
    huge = np.array([1e20, -3e30, 1e38], np.float32)
    assert (np.abs(run_elementwise(k, huge, out_dtype=np.float32)) <= 1).all()


@pytest.mark.parametrize(
    ("dtype", "npt", "tol"), [(T.float32, np.float32, 4e-7), (T.float64, np.float64, 1e-14)]
)
def test_exp10(dtype, npt, tol) -> None:
    k = elementwise_kernel(lambda b, x: b.math("exp10", x), 1, dtype, dtype)
    x = np.random.default_rng().uniform(-37, 38, 5000).astype(npt)
    got = run_elementwise(k, x, out_dtype=npt)
    np.testing.assert_allclose(got, 10.0 ** x.astype(np.float64), rtol=tol)


@pytest.mark.parametrize(
    ("dtype", "npt", "tol"), [(T.float32, np.float32, 2e-6), (T.float64, np.float64, 1e-13)]
)
def test_erfinv_round_trips(dtype, npt, tol) -> None:
    k = elementwise_kernel(lambda b, x: b.math("erfinv", x), 1, dtype, dtype)
    y = np.random.default_rng().uniform(-0.999, 0.999, 3000).astype(npt)
    got = run_elementwise(k, y, out_dtype=npt).astype(np.float64)
    back = np.array([math.erf(v) for v in got])
    np.testing.assert_allclose(back, y.astype(np.float64), rtol=tol, atol=tol)


def test_sinpi_cospi_large_arguments() -> None:
    x = np.array([0.5, 1.0, 1.5, 1e6 + 0.5, 123456.25, -7.5, 3e7], np.float32)
    for fn, ref in (("sinpi", np.sin), ("cospi", np.cos)):
        k = elementwise_kernel(lambda b, v, fn=fn: b.math(fn, v), 1, T.float32, T.float32)
        got = run_elementwise(k, x, out_dtype=np.float32)
        xd = x.astype(np.float64)
        want = ref(np.pi * (xd - 2 * np.round(xd / 2)))
        np.testing.assert_allclose(got, want, atol=2e-7)
