"""tl math functions, tl.math and tl.extra.libdevice against numpy in float64."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec.language.extra import libdevice


@jit
def unary(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, FN(x), mask=mask)


@tilec.jit
def _rsqrt(x):
    return tl.rsqrt(x)


@tilec.jit
def _abs(x):
    return tl.abs(-x)


@tilec.jit
def _fma(x):
    return tl.fma(x, x, 1.0)


@tilec.jit
def _div_rn(x):
    return tl.div_rn(x, 3.0)


@tilec.jit
def _asin(x):
    return libdevice.asin(x / 8)


@tilec.jit
def _pow(x):
    return libdevice.pow(x, 1.5)


@tilec.jit
def _methods(x):
    return x.exp() + x.sqrt()


CASES = {
    "exp": (tl.exp, np.exp),
    "exp2": (tl.exp2, np.exp2),
    "log": (tl.log, np.log),
    "log2": (tl.log2, np.log2),
    "sqrt": (tl.sqrt, np.sqrt),
    "sqrt_rn": (tl.sqrt_rn, np.sqrt),
    "sin": (tl.sin, np.sin),
    "cos": (tl.cos, np.cos),
    "erf": (tl.erf, np.vectorize(math.erf)),
    "floor": (tl.floor, np.floor),
    "ceil": (tl.ceil, np.ceil),
    "sigmoid": (tl.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "math.exp": (tl.math.exp, np.exp),
    "libdevice.tanh": (libdevice.tanh, np.tanh),
    "rsqrt": (_rsqrt, lambda x: 1 / np.sqrt(x)),
    "abs": (_abs, np.abs),
    "fma": (_fma, lambda x: x * x + 1),
    "div_rn": (_div_rn, lambda x: x / 3),
    "asin": (_asin, lambda x: np.arcsin(x / 8)),
    "pow": (_pow, lambda x: x**1.5),
    "methods": (_methods, lambda x: np.exp(x) + np.sqrt(x)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_math_function(name):
    tl_fn, np_fn = CASES[name]
    n = 100
    x = random(n, np.float32, 0.1, 4)
    out = poisoned(n, np.float32)
    unary[(1,)](x, out, n, FN=tl_fn, BLOCK=128)
    np.testing.assert_allclose(out, np_fn(x.astype(np.float64)), rtol=2e-6, atol=1e-6)
