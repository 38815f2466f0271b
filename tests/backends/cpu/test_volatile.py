"""A volatile load is re-read every time it runs: programs can wait on flags other programs set."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl
from tilec import config


@tilec.jit
def ordered(flags, out, N: tl.constexpr):
    pid = tl.program_id(0)
    if pid > 0:  # wait until the previous program has published its value
        while tl.load(flags + pid - 1, volatile=True) == 0:
            pass
    prev = tl.load(out + pid - 1, mask=pid > 0, other=0)
    tl.store(out + pid, prev + pid)
    tl.atomic_xchg(flags + pid, 1)


def test_programs_wait_on_each_other() -> None:
    n = 64
    flags = np.zeros(n, np.int32)
    out = np.zeros(n, np.int32)
    with config.override(num_threads=2):
        ordered[(n,)](flags, out, N=n)
    np.testing.assert_array_equal(out, np.cumsum(np.arange(n)))
