"""device_assert fails the launch with its message and location; static_print runs at compile
time; static_assert checks constexprs."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.build import build
from support.run import jit
from tilec.errors import CompileError, DeviceAssertError


@jit
def checked(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "x must be non-negative", mask=offs < n)


def test_device_assert_passes_and_fails():
    x = np.arange(40, dtype=np.int32)
    checked[(3,)](x, 40, BLOCK=16)
    x[35] = -5
    with pytest.raises(DeviceAssertError) as info:
        checked[(3,)](x, 40, BLOCK=16)
    text = str(info.value)
    assert "device_assert failed: x must be non-negative" in text
    assert "program id (2, 0, 0)" in text


def printed(x_ptr, BLOCK: tl.constexpr):
    tl.static_print("BLOCK is", BLOCK)
    tl.static_assert(BLOCK >= 16, "BLOCK too small")
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.arange(0, BLOCK))


def test_static_print_runs_while_compiling(capsys):
    build(printed, "*i32", 32)  # the frontend itself: a cached kernel is not recompiled
    assert capsys.readouterr().out == "BLOCK is 32\n"
    with pytest.raises(CompileError, match="static_assert failed: BLOCK too small"):
        build(printed, "*i32", 8)
