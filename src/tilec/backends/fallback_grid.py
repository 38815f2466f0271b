"""The ctypes fallback's CPU grid run: Python threads take chunks of program ids from one cursor.

ctypes releases the GIL during each call, so chunks run in parallel. Each thread sizes its chunks
to run about a millisecond (growing from one program while they are shorter, cut after a long
one), so a failed assert, a fault that ctypes reports (Windows) or Ctrl-C stops the grid that
soon: the launching thread runs chunks too and receives KeyboardInterrupt between them.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections.abc import Callable

from ..errors import LaunchError

CHUNK_S = 0.001  # how long a chunk should run: threads look at the stop flags this often


def next_chunk(size: int, most: int, elapsed: float) -> int:
    """The next chunk size of a thread from how long its last chunk ran: cut in proportion
    after a long one; after a short one, grown to take about half of CHUNK_S, at most 64-fold
    (a ctypes call costs microseconds, so a short grid should take few chunks)."""
    if elapsed > CHUNK_S:
        return max(1, int(size * CHUNK_S / elapsed))
    if elapsed < CHUNK_S / 2:
        factor = min(64.0, CHUNK_S / 2 / max(elapsed, 1e-9))
        return min(most, max(size + 1, int(size * factor)))
    return size


class GridRun:
    """One run of ``entry`` over programs 0..total-1 of grid ``dims`` on ``threads`` threads."""

    def __init__(
        self, entry: Callable[..., None], args: int, dims: tuple[int, int, int], status: int
    ) -> None:
        self._entry, self._args, self._dims, self._status = entry, args, dims, status
        self._total = dims[0] * dims[1] * dims[2]
        self._next = 0
        self._lock = threading.Lock()
        self._stop = False
        self._error: LaunchError | None = None

    def run(self, threads: int) -> None:
        if self._total == 1:  # one program: nothing to pace or to stop between
            self._call(0, 1)
        else:
            self._run(threads)
        if self._error is not None:
            raise self._error

    def _run(self, threads: int) -> None:
        # an eighth of a thread's share at most, so threads finish close together; one thread
        # needs no balancing
        most = self._total if threads == 1 else max(1, min(self._total // (threads * 8), 4096))
        workers = [
            threading.Thread(target=self._work, args=(most,), daemon=True)
            for _ in range(threads - 1)
        ]
        try:
            for w in workers:
                w.start()
            self._work(most)
        finally:
            # An exception here (Ctrl-C between chunks, or while workers start) unwinds into a
            # caller that frees the argument buffer and the arrays: no worker may still be
            # running the kernel then.
            self._stop = True
            _join_all(workers)

    def _work(self, most: int) -> None:
        # locals: a chunk of a short grid costs a few Python operations, keep them few
        lock, total, clock, call = self._lock, self._total, time.perf_counter, self._call
        failed = ctypes.c_int64.from_address(self._status)  # a failed device_assert
        size, last = 1, clock()
        while True:
            with lock:
                begin = self._next
                if begin >= total or self._stop or failed.value:
                    return
                end = self._next = min(begin + size, total)
            if not call(begin, end):
                return
            now = clock()
            size, last = next_chunk(size, most, now - last), now

    def _call(self, begin: int, end: int) -> bool:
        """Runs programs begin..end-1; False when they faulted (the grid then stops)."""
        try:
            self._entry(self._args, *self._dims, begin, end, self._status)
        except OSError as exc:  # Windows: ctypes reports the kernel's hardware fault
            self._fail(begin, end, exc)
            return False
        return True

    def _fail(self, begin: int, end: int, exc: OSError) -> None:
        with self._lock:
            self._stop = True
            if self._error is None:
                self._error = LaunchError(
                    f"the kernel faulted ({exc}) in one of the programs with linear ids "
                    f"{begin}..{end - 1} of grid {self._dims}; like CUDA's illegal "
                    "memory access, the grid was stopped: the outputs are undefined"
                )


def _join_all(workers: list[threading.Thread]) -> None:
    """Wait for every worker, even through a further exception (a second Ctrl-C), which is
    raised once all of them are done. Timed joins: Windows cannot interrupt an untimed one."""
    pending: BaseException | None = None
    for w in workers:
        while w.is_alive():
            try:
                w.join(0.02 if sys.platform == "win32" else None)
            except BaseException as exc:
                pending = pending or exc
    if pending is not None:
        raise pending
