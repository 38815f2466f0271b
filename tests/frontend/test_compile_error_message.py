"""Triton's ``CompilationError.error_message`` and the integer-overflow error, both errors.py's."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import errors
from tilec.source import SourceLoc


@tilec.jit
def bad_shape(out):
    tl.store(out + tl.arange(0, 3), 1.0)


def test_error_message_is_the_plain_message_of_every_compile_error() -> None:
    exc = errors.TileTypeError("shapes differ", SourceLoc("k.py", 3, 4))
    assert exc.error_message == "shapes differ"


def test_a_kernel_error_carries_its_plain_message() -> None:
    with pytest.raises(tilec.CompileError) as info:
        bad_shape.warmup(np.zeros(4, np.float32), grid=(1,))
    exc = info.value
    assert exc.error_message == exc.message and "^" not in exc.error_message
    assert "^" in str(exc)  # the rendered error shows the excerpt and its caret


def test_integer_overflow_error_is_one_of_tilecs_errors_and_an_overflow_error() -> None:
    assert issubclass(errors.IntegerOverflowError, errors.UsageError)
    assert issubclass(errors.IntegerOverflowError, OverflowError)

    @tilec.jit
    def store(out, n):
        tl.store(out, n)

    with pytest.raises(errors.IntegerOverflowError, match="does not fit in 64 bits"):
        store.warmup(np.zeros(1, np.int64), 2**64, grid=(1,))
