"""The ctypes fallback's CPU grid run: Python threads take chunks of program ids from one cursor.

ctypes releases the GIL during each call, so chunks run in parallel. Each thread sizes its chunks
to run about a millisecond (doubling from one program while they are shorter, cut after a long
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
    """The next chunk size of a thread from how long its last chunk ran (grid.c's rule)."""
    if elapsed > CHUNK_S:
        return max(1, int(size * CHUNK_S / elapsed))
    if elapsed < CHUNK_S / 2 and size < most:
        return min(size * 2, most)
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
        self._failed = ctypes.c_int64.from_address(status)  # a failed device_assert
        self._error: LaunchError | None = None

    def run(self, threads: int) -> None:
        most = max(1, min(self._total // (threads * 8), 4096))
        workers = [
            threading.Thread(target=self._work, args=(most,), daemon=True)
            for _ in range(threads - 1)
        ]
        for w in workers:
            w.start()
        try:
            self._work(most)
        finally:
            # An exception here (Ctrl-C between chunks) unwinds into a caller that frees the
            # argument buffer and the arrays: no worker may still be running the kernel then.
            self._stop = True
            _join_all(workers)
        if self._error is not None:
            raise self._error

    def _claim(self, size: int) -> tuple[int, int] | None:
        with self._lock:
            begin = self._next
            if begin >= self._total or self._stop or self._failed.value:
                return None
            self._next = min(begin + size, self._total)
            return begin, self._next

    def _work(self, most: int) -> None:
        size, last = 1, time.perf_counter()
        while (chunk := self._claim(size)) is not None:
            try:
                self._entry(self._args, *self._dims, chunk[0], chunk[1], self._status)
            except OSError as exc:  # Windows: ctypes reports the kernel's hardware fault
                self._fail(chunk, exc)
                return
            now = time.perf_counter()
            size, last = next_chunk(size, most, now - last), now

    def _fail(self, chunk: tuple[int, int], exc: OSError) -> None:
        with self._lock:
            self._stop = True
            if self._error is None:
                self._error = LaunchError(
                    f"the kernel faulted ({exc}) in one of the programs with linear ids "
                    f"{chunk[0]}..{chunk[1] - 1} of grid {self._dims}; like CUDA's illegal "
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
