"""fp8 dtypes can be named, compared and converted to and from (frontend/fp8.py), but arithmetic
on fp8 values is a clear error."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UnsupportedFeature


@tilec.jit
def _compare_only(X, Out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    order: tl.constexpr = (0, 1) if X.dtype.element_ty == tl.float8e5 else (1, 0)
    tl.store(Out + offs, tl.load(X + offs) + order[0])


@tilec.jit
def _computes_with_fp8(X, Out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Out + offs, (tl.load(X + offs).to(tl.float8e4nv) * 2).to(tl.float32))


def test_naming_fp8_in_a_comparison_compiles() -> None:
    x = np.random.default_rng().standard_normal(16).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    _compare_only[(1,)](x, out, BLOCK=16)
    np.testing.assert_array_equal(out, x + 1)


def test_arithmetic_on_fp8_is_a_clear_error() -> None:
    x = np.zeros(16, np.float32)
    with pytest.raises(UnsupportedFeature, match=r"on fp8 dtypes \(tl.float8e4nv\) is not supported"):
        _computes_with_fp8[(1,)](x, x, BLOCK=16)
