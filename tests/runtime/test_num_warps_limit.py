"""``num_warps`` beyond a GPU block's 32 warps: the CPU, where it shapes nothing, takes it (as
Triton's test_subprocess does with 128 on a CPU whose warp is one thread); the CUDA backend
refuses it by name before compiling anything."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec.errors import UsageError


@jit
def double(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs) * 2)


@pytest.mark.parametrize("warps", [64, 128, 1024])
def test_cpu_takes_many_warps(warps):
    x = random(128, np.float32)
    y = poisoned(128, np.float32)
    double[(1,)](x, y, BLOCK=128, num_warps=warps)
    np.testing.assert_array_equal(y, x.astype(np.float64) * 2)


def test_cuda_refuses_more_than_32():
    def scalar_only(n):
        tl.device_assert(n > 0)

    k = tilec.jit(scalar_only, backend="cuda")
    with pytest.raises(UsageError, match=r"num_warps=64: the cuda backend launches at most 32"):
        k[(1,)](5, num_warps=64)
