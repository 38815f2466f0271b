"""A launch missing an argument (runtime or constexpr) is a LaunchArgumentError (a UsageError
and a TypeError) naming the kernel and the argument; Python's own binding errors name the
kernel, not the generated launch function."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import LaunchArgumentError


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr, ACT: tl.constexpr = "none"):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor, mask=offs < n)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda x: scale[(1,)](x, x, 16, BLOCK=16), "'factor'"),
        (lambda x: scale[(1,)](x, x, 16, 2.0), "'BLOCK'"),
        (lambda x: scale[(1,)](x, x, BLOCK=16), "'n', 'factor'"),
        (lambda x: scale.warmup(x, x, 16, BLOCK=16, grid=(1,)), "'factor'"),
    ],
)
def test_missing_arguments_are_named(call, name):
    x = np.zeros(16, np.float32)
    with pytest.raises(LaunchArgumentError, match=f"^scale\\(\\) missing argument\\(s\\) {name}$"):
        call(x)


def test_defaults_still_apply_and_a_repeat_reads_naturally():
    rng = np.random.default_rng()
    x = rng.standard_normal(16).astype(np.float32)
    out = np.full_like(x, np.nan)
    scale[(1,)](x, out, 16, 3.0, BLOCK=16)  # ACT takes its default
    np.testing.assert_allclose(out, x.astype(np.float64) * 3.0, rtol=1e-6)
    with pytest.raises(TypeError, match=r"^scale\(\) got multiple values for argument 'n'"):
        scale[(1,)](x, out, 16, 3.0, n=16, BLOCK=16)
