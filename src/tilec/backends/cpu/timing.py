"""do_bench on the host clock: the CPU backend's benchmarker (and any host backend's).

The number of timed calls comes from a first estimate, so about ``rep`` milliseconds are
timed whatever one call costs; each call is timed on its own with ``time.perf_counter``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any


def time_calls(
    fn: Callable[[], Any], warmup: float, rep: float, grad_to_none: Sequence[Any] | None
) -> list[float]:
    """Milliseconds of each timed call of ``fn``."""
    fn()  # compile and load outside the timing
    start = time.perf_counter()
    calls = 0
    while calls < 5 or time.perf_counter() - start < 1e-3:
        fn()
        calls += 1
    estimate = max((time.perf_counter() - start) * 1e3 / calls, 1e-6)
    for _ in range(max(1, int(warmup / estimate))):
        fn()
    times = []
    for _ in range(max(1, min(int(rep / estimate), 1_000_000))):
        for x in grad_to_none or ():
            x.grad = None
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times
