"""How soon Ctrl-C stops a long CPU grid: the time from SIGINT to KeyboardInterrupt.

Launches a grid of ~5 ms programs that would run for minutes, raises SIGINT from a timer thread
at a random moment 0.1-0.4 s in, and times the KeyboardInterrupt, for the native launcher and
the ctypes fallback, on one thread and on all cores. Prints the median and the worst trial.

    PYTHONPATH=src python bench/interrupt.py [--trials N] [--program-ms MS]
"""

from __future__ import annotations

import argparse
import random
import signal
import statistics
import sys
import threading
import time

import numpy as np

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends import launcher


@tilec.jit
def spin(out_ptr, n):
    acc = 0.0
    for _ in range(n):  # dependent float ops: no closed form
        acc = acc * 0.5 + 1.0
    tl.store(out_ptr + tl.program_id(0), acc)


def per_iteration_s() -> float:
    out = np.zeros(1, np.float32)
    spin[(1,)](out, 10)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        spin[(1,)](out, 1_000_000)
        times.append((time.perf_counter() - t0) / 1_000_000)
    return min(times)


def one_trial(programs: int, n: int) -> float:
    """Seconds from SIGINT to KeyboardInterrupt in one long launch."""
    out = np.zeros(programs, np.float32)
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        signal.raise_signal(signal.SIGINT)

    timer = threading.Timer(random.uniform(0.1, 0.4), interrupt)
    timer.start()
    try:
        spin[(programs,)](out, n)
    except KeyboardInterrupt:
        caught = time.perf_counter()
    else:
        raise SystemExit("the grid ended before the interrupt: make it longer")
    timer.join()
    return caught - sent[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--program-ms", type=float, default=5.0)
    ns = parser.parse_args()
    step = per_iteration_s()
    n = max(1, int(ns.program_ms / 1000 / step))
    cores = launcher.threads_for(1 << 30)
    print(f"programs of ~{ns.program_ms} ms; {ns.trials} trials each; latency in ms")
    for native in (True, False):
        for threads in sorted({1, cores}):
            with config.override(disable_launcher=not native, num_threads=threads):
                if native and not launcher.status().native:
                    continue
                programs = int(600 * threads / (n * step))  # ten minutes' worth
                lat = [one_trial(programs, n) * 1e3 for _ in range(ns.trials)]
                check = np.full(64, np.nan, np.float32)
                spin[(64,)](check, 100)
                ok = "next launch ok" if (check == 2.0).all() else "NEXT LAUNCH WRONG"
            name = "native" if native else "fallback"
            print(f"  {name:8} {threads:3} thread(s)  median {statistics.median(lat):7.2f}  "
                  f"max {max(lat):7.2f}  ({ok})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
