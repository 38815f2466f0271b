"""@jit functions passed to kernels as compile-time values (a constexpr parameter, or inside a
tuple argument, as Triton allows): the compiled kernel is keyed on the function's source, so a
changed function is compiled again, in memory and in the disk cache alike."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec import config
from tilec.backends.target import CompileOptions, Target
from tilec.runtime import compiler
from tilec.runtime import describers as D
from tilec.runtime import specialize as S


@jit
def apply_constexpr(Y, X, f: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(Y + offs, f(tl.load(X + offs)))


@jit
def apply_in_tuple(Y, X, fs):
    offs = tl.arange(0, 16)
    tl.store(Y + offs, fs[0](tl.load(X + offs)))


def _helper():
    def scale(x):
        return x * 2

    return tilec.jit(scale)


@pytest.mark.parametrize("kernel", [apply_constexpr, apply_in_tuple])
def test_changed_function_is_compiled_again(kernel, tmp_path):
    helper = _helper()
    arg = helper if kernel is apply_constexpr else (helper,)
    x = random(16, np.float32)
    with config.override(cache_dir=tmp_path / "cache"):
        y = poisoned(16, np.float32)
        kernel[(1,)](y, x, arg)
        np.testing.assert_array_equal(y, x * 2)
        helper._unsafe_update_src("def scale(x):\n    return x * 3\n")
        y = poisoned(16, np.float32)
        kernel[(1,)](y, x, arg)
        np.testing.assert_array_equal(y, (x.astype(np.float64) * 3).astype(np.float32))


def test_disk_cache_key_follows_the_function_source():
    helper = _helper()
    specs = (S.spec_from_key("f", D.constexpr_key(helper), True),)
    target, options = Target("cpu", "generic"), CompileOptions()
    before = compiler.cache_key(apply_constexpr, specs, target, options)
    helper._unsafe_update_src("def scale(x):\n    return x * 3\n")
    specs = (S.spec_from_key("f", D.constexpr_key(helper), True),)
    assert compiler.cache_key(apply_constexpr, specs, target, options) != before


def test_library_function_as_a_value():
    """tl's own functions (keyed by the compiler's fingerprint) pass the same way."""
    x = random(16, np.float32)
    y = poisoned(16, np.float32)
    apply_constexpr[(1,)](y, x, tl.abs)
    np.testing.assert_array_equal(y, np.abs(x))
    apply_in_tuple[(1,)](y, x, (tl.sigmoid,))
    np.testing.assert_allclose(y, 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)
