"""``must_use_result`` (Triton's ``triton.must_use_result``): a marked function called as a bare
statement is a compile error naming the call; used results compile as before."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned

must_use_result = tl.core.must_use_result


@must_use_result("Assign it.")
@tilec.jit
def cube(x):
    return x * x * x


@must_use_result
@tilec.constexpr_function
def width():
    return 8


@jit
def used(Y):
    offs = tl.arange(0, width())
    v = cube(offs.to(tl.float32))
    tl.store(Y + offs, v)


@jit
def dropped(Y):
    cube(tl.arange(0, 8))


@jit
def dropped_constexpr(Y):
    width()


@jit
def dropped_advance(X):
    p = tl.make_block_ptr(X, (8,), (1,), (0,), (8,), (0,))
    tl.advance(p, (4,))


def test_used_results_compile_and_run():
    y = poisoned(8, np.float32)
    used[(1,)](y)
    np.testing.assert_array_equal(y, np.arange(8, dtype=np.float64) ** 3)


@pytest.mark.parametrize(
    "kernel, message",
    [
        (dropped, "The result of cube is not being used. Assign it."),
        (dropped_constexpr, "The result of width is not being used."),
        (dropped_advance, "The result of tl.advance is not being used. tl.advance returns"),
    ],
)
def test_dropped_results_are_errors(kernel, message):
    with pytest.raises(tilec.CompileError) as info:
        kernel[(1,)](np.zeros(8, np.float32))
    assert message in str(info.value)
    assert info.value.loc is not None  # points at the call


def test_marker_is_triton_attribute():
    assert cube._must_use_result == "Assign it."
    assert width._must_use_result is True
