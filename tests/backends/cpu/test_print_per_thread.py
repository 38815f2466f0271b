"""A scalar print appears once per thread of the launch (num_warps × the CPU's warp size of
1), as every GPU thread prints it; tile elements are printed once each."""

from collections import Counter

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def prints(x, N: tl.constexpr):
    v = tl.load(x)
    print("s:", v)  # a scalar: every thread
    tl.device_print("t:", tl.arange(0, N))  # a tile: each element once
    print("plain")  # no values: every thread


@pytest.mark.parametrize("num_warps", [1, 2, 8])
def test_scalar_lines_follow_num_warps(capfd, num_warps: int) -> None:
    value = int(np.random.default_rng().integers(-1000, 1000))
    prints[(2,)](np.full(1, value, np.int32), N=4, num_warps=num_warps)
    lines = Counter(capfd.readouterr().out.splitlines())
    for pid in (0, 1):
        assert lines[f"pid ({pid}, 0, 0) idx () s: {value}"] == num_warps
        assert lines[f"pid ({pid}, 0, 0) plain"] == num_warps
        for i in range(4):
            assert lines[f"pid ({pid}, 0, 0) idx ({i}) t: {i}"] == 1
    assert sum(lines.values()) == 2 * (2 * num_warps + 4)


def test_default_launch_prints_a_scalar_num_warps_times(capfd) -> None:
    prints[(1,)](np.full(1, 7, np.int32), N=2)  # Triton's default num_warps is 4
    lines = Counter(capfd.readouterr().out.splitlines())
    assert lines["pid (0, 0, 0) idx () s: 7"] == 4
