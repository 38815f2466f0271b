"""The CPU grid split into one contiguous share per thread (stolen from when a thread is done):
every program runs exactly once for any thread count, including more threads than the shares
kept inline in a grid job, and programs of very uneven cost still all run."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config


@tilec.jit
def _mark(out_ptr, counts_ptr, SPIN: tl.constexpr):
    pid = tl.program_id(0) + tl.program_id(1) * tl.num_programs(0)
    work = 0
    if SPIN:
        # the first programs are far slower than the rest: the other threads steal their share
        for i in range(0, tl.where(pid < 8, 20000, 1)):
            work += i % 3
    tl.store(out_ptr + pid, pid * 3 + work * 0)
    tl.atomic_add(counts_ptr + pid, 1)


@pytest.mark.parametrize("threads", [1, 2, 3, 64, 65, 100])
@pytest.mark.parametrize("grid", [(1, 1), (7, 1), (257, 3), (1000, 2)])
def test_every_program_once(threads: int, grid: tuple[int, int]) -> None:
    total = grid[0] * grid[1]
    out = np.full(total, -1, np.int32)
    counts = np.zeros(total, np.int32)
    with config.override(num_threads=threads):
        _mark[grid](out, counts, SPIN=False)
    np.testing.assert_array_equal(out, np.arange(total) * 3)
    np.testing.assert_array_equal(counts, 1)


def test_uneven_programs() -> None:
    total = 64
    out = np.full(total, -1, np.int32)
    counts = np.zeros(total, np.int32)
    with config.override(num_threads=4):
        _mark[(total,)](out, counts, SPIN=True)
    np.testing.assert_array_equal(out, np.arange(total) * 3)
    np.testing.assert_array_equal(counts, 1)
