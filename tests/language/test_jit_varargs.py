"""@jit helpers called from kernels bind their arguments as Python does, as in Triton: ``*args``
collects a tuple, keyword-only parameters and defaults apply, and ``f(*t)`` unpacks a tuple."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec.errors import CompileError, UnsupportedFeature


@tilec.jit
def weighted_sum(*terms, scale=1.0, bias: tl.constexpr = 0):
    acc = terms[0] * scale
    for i in tl.static_range(1, len(terms)):
        acc += terms[i] * scale
    return acc + bias


@tilec.jit
def first(*dims):
    return dims[0]


@jit
def varargs_kernel(X, Y, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    dims: tl.constexpr = (3, 0)
    tl.store(Z + offs, weighted_sum(x, y))
    tl.store(Z + BLOCK + offs, weighted_sum(x, y, x, scale=0.5, bias=2))
    tl.store(Z + 2 * BLOCK + offs, weighted_sum(*(x, y), scale=first(*dims)))
    tl.store(Z + 3 * BLOCK + offs, weighted_sum(*[x * v for v in (1, 2, 3)]))


def test_varargs_keywords_and_defaults():
    x, y = random(16, np.float32), random(16, np.float32)
    z = poisoned((4, 16), np.float32)
    varargs_kernel[(1,)](x, y, z, BLOCK=16)
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    ref = np.stack([xd + yd, (2 * xd + yd) * 0.5 + 2, (xd + yd) * 3, 6 * xd])
    np.testing.assert_allclose(z, ref, rtol=1e-6, atol=1e-6)


@tilec.jit
def two(a, b):
    return a + b


@jit
def too_many(X):
    tl.store(X, two(*(1, 2, 3)))


def test_binding_errors_name_the_helper():
    with pytest.raises(CompileError, match=r"two\(\): too many positional arguments"):
        too_many[(1,)](poisoned(1, np.float32))


@jit
def star_scalar(X):
    tl.store(X, two(*tl.load(X)))


def test_unpacking_a_tensor_is_refused():
    with pytest.raises(CompileError, match=r"only a tuple can be unpacked with '\*'"):
        star_scalar[(1,)](poisoned(1, np.float32))


@jit
def sum_rows(Y, *srcs, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(srcs)):
        acc += tl.load(srcs[i] + offs)
    tl.store(Y + offs, acc)


@jit
def scaled_rows(Y, scale, *srcs):
    offs = tl.arange(0, 16)
    for i in tl.static_range(len(srcs)):
        tl.store(Y + i * 16 + offs, tl.load(srcs[i] + offs) * scale)


@pytest.mark.parametrize("n", [1, 3])
def test_kernel_with_star_args(n):
    """A kernel's ``*args`` is one tuple argument at launch, as in Triton."""
    srcs = [random(16, np.float32) for _ in range(n)]
    y = poisoned((n, 16), np.float32)
    scaled_rows[(1,)](y, 2.0, *srcs)
    np.testing.assert_array_equal(y, np.stack(srcs).astype(np.float64) * 2)
    with pytest.raises(UnsupportedFeature, match=r"keyword-only parameters \('BLOCK'\)"):
        sum_rows[(1,)](y, *srcs)
