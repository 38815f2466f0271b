"""``tl.make_tensor_descriptor`` refuses what Triton refuses (and a TMA copy cannot do): fewer
than 16 bytes in a block's last dimension, a last stride other than the constant 1, more than
5 dimensions; the message is also the error's cause, as Triton's tests read it."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit


@jit
def make(ptr, s1, B0: tl.constexpr, B1: tl.constexpr, STRIDE: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [16, 16], [16, STRIDE], [B0, B1])
    desc.load([0, 0])


@jit
def runtime_stride(ptr, s1):
    desc = tl.make_tensor_descriptor(ptr, [16, 16], [16, s1], [4, 8])
    desc.load([0, 0])


@pytest.mark.parametrize(
    "dtype, b1, stride, message",
    [
        (np.int32, 2, 1, "at least 16 bytes in the last dimension, but got 2 \\* 4 = 8 bytes"),
        (np.int16, 4, 1, "but got 4 \\* 2 = 8 bytes"),
        (np.float32, 8, 2, "last dim must be 1 but got 2"),
    ],
)
def test_refused(dtype, b1, stride, message):
    with pytest.raises(tilec.CompileError, match=message) as info:
        make[(1,)](np.zeros(256, dtype), 1, 1, b1, stride)
    assert "Descriptor" in str(info.value.__cause__) or "descriptor" in str(info.value.__cause__)


def test_runtime_last_stride_refused():
    with pytest.raises(tilec.CompileError, match="last dim must be 1 but got a run-time"):
        runtime_stride[(1,)](np.zeros(256, np.float32), 3)


def test_sixteen_bytes_accepted():
    make[(1,)](np.zeros(256, np.int32), 1, 1, 4, 1)
    make[(1,)](np.zeros(256, np.int8), 1, 2, 16, 1)
