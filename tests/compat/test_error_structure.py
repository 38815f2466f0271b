"""Triton's error structure where its tests observe it: a ``CompilationError`` (tilec's
CompileError, located) whose ``__cause__`` carries the plain message, Triton's message
fragments, and ``CompileTimeAssertionFailure`` from ``tl.static_assert``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit
from tilec.errors import CompileError, CompileTimeAssertionFailure, TilecError


@jit
def pid_axis(X):
    tl.program_id(20)


@jit
def expand_bad_axis(X, AXIS: tl.constexpr):
    tl.expand_dims(tl.arange(0, 8), AXIS)


@jit
def bitwise_floats(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), x & x)


@jit
def slice_tile(X):
    x = tl.load(X + tl.arange(0, 4))
    x[1:]


@jit
def mixed_signedness(X, Y):
    tl.store(X, tl.load(X) % tl.load(Y))


@jit
def failing_static_assert(X, N: tl.constexpr):
    tl.static_assert(N > 4, "N must exceed 4")


def _error(kernel, *args) -> CompileError:
    with pytest.raises(TilecError) as info:
        kernel[(1,)](*args)
    assert isinstance(info.value, tilec.CompilationError)
    assert tilec.TritonError is TilecError and tilec.InterpreterError is CompileError
    return info.value


X = np.zeros(4, np.float32)


@pytest.mark.parametrize(
    ("kernel", "args", "cause"),
    [
        (pid_axis, (X,), r"program_id axis must be 0, 1, or 2 but got 20"),
        (expand_bad_axis, (X, -3), r"invalid axis -3"),
        (expand_bad_axis, (X, 2), r"invalid axis 2"),
        (expand_bad_axis, (X, (0, -3)), r"duplicate axes, normalized axes = \[0, 0\]"),
        (bitwise_floats, (X,), r"invalid operands of type fp32 and fp32"),
        (slice_tile, (X,), r"unsupported tensor index"),
        (mixed_signedness, (np.zeros(1, np.int32), np.zeros(1, np.uint32)),
         r"Cannot use .* because they have different signedness"),
    ],
)  # fmt: skip
def test_cause_carries_triton_message(kernel, args, cause):
    err = _error(kernel, *args)
    assert err.__cause__ is not None and re.search(cause, str(err.__cause__))
    assert err.loc is not None and err.loc.line > 0  # the error itself stays located


def test_static_assert_failure_class():
    err = _error(failing_static_assert, X, 2)
    assert isinstance(err, CompileTimeAssertionFailure)
    assert "N must exceed 4" in str(err.__cause__)


def test_errors_submodule_is_an_attribute():
    """``triton.compiler.errors.CompilationError`` without importing the submodule first, as
    Triton's package imports it (checked in a fresh process, where nothing imported it)."""
    import subprocess
    import sys

    code = (
        "import tilec.compat.triton.compiler as c, tilec.errors as e; "
        "assert c.errors.CompilationError is e.CompileError"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
