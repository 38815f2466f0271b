"""Triton's ``@jit(repr=...)`` hook names each compiled specialization from its signature and
constants; without one the kernel keeps the function's name; the name is part of the cache key
and a valid symbol."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from support.run import poisoned


def _name(specialization):
    ty = specialization.signature["n"]
    ones = "_".join(k for k, v in specialization.constants.items() if v == 1)
    return f"scaled_{ty}_{ones}_{specialization.constants['BLOCK']}"


@tilec.jit(repr=_name)
def scaled(x_ptr, n, one, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), (n * one).to(tl.float32))


@tilec.jit
def plain(x_ptr):
    tl.store(x_ptr, 1.0)


def test_the_hook_names_each_specialization():
    x = poisoned(8, np.float32)
    small = scaled[(1,)](x, 3, 1, BLOCK=8)
    assert small.name == "scaled_i32_one_8"
    np.testing.assert_array_equal(x, np.full(8, 3.0, np.float32))
    big = scaled[(1,)](x, 2**40, 1, BLOCK=4)
    assert big.name == "scaled_i64_one_4"


def test_without_a_hook_the_function_names_it():
    assert plain[(1,)](np.zeros(1, np.float32)).name == "plain"
    assert plain.repr(None) == "plain"


def test_names_become_symbols():
    from tilec.runtime.kernel_repr import symbol_name

    assert symbol_name("a-b c.d") == "a_b_c_d"
    assert symbol_name("3x") == "_3x"
    assert symbol_name("") is None
