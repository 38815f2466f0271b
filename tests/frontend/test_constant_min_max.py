"""Python's min/max of compile-time numbers in a kernel fold at compile time, except with NaN or
-0.0, whose answer in Python depends on the argument order (refused, as in Triton)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tilec.language as tl
from support.build import build
from support.run import jit, poisoned
from tilec.errors import TileTypeError


def min_of(a: tl.constexpr, b: tl.constexpr):
    tl.static_assert(min(a, b) == 1.0)


def max_of(a: tl.constexpr, b: tl.constexpr):
    tl.static_assert(max(a, b) == 1.0)


def max_of_tuple(a: tl.constexpr, b: tl.constexpr):
    tl.static_assert(max((a, b)) == 1.0)


@pytest.mark.parametrize("fn", [min_of, max_of, max_of_tuple])
@pytest.mark.parametrize("bad", [math.nan, -0.0])
def test_nan_and_negative_zero_are_refused(fn, bad):
    which = "NaN" if math.isnan(bad) else "negative zero"
    with pytest.raises(TileTypeError, match=f"does not support {which}"):
        build(fn, 1.0, bad)


def test_ordinary_values_fold():
    build(min_of, 1.0, 2.5)
    build(max_of, 1.0, 0.0)
    build(max_of_tuple, -3, 1.0)


@jit
def store_min(Y, a: tl.constexpr, b: tl.constexpr):
    tl.store(Y, min(a, b) + max(a, b, 0.5))


def test_folded_value_is_stored():
    y = poisoned(1, np.float32)
    store_min[(1,)](y, 0.25, 2.0)
    assert y[0] == 2.25
