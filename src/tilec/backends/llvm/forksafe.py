"""Makes ``os.fork`` wait until no thread is inside tilec's LLVM sections, as glibc does for malloc.

A child forked while another thread held a compile lock (or was inside an LLVM call) would inherit
that lock held forever and LLVM's state half-updated. Holding every registered lock across the
fork gives the child free locks and consistent state. Registered locks are taken in registration
order, llvmlite's own lock last: code holding a tilec lock may enter LLVM, never the reverse.
"""

from __future__ import annotations

import os
import threading
from typing import Any

_locks: list[Any] = []
_guard = threading.Lock()


def register(lock: Any) -> None:
    """Hold ``lock`` (anything with acquire/release) across every later fork of this process."""
    if lock in _locks:  # the common case: a cheap check on each compile
        return
    with _guard:
        if lock in _locks:
            return
        if not _locks and hasattr(os, "register_at_fork"):  # not on Windows: no fork there
            os.register_at_fork(before=_before, after_in_parent=_after, after_in_child=_after)
        _locks.append(lock)


def _llvm_lock() -> Any:
    from llvmlite.binding import ffi  # lazy: registering a lock must not load LLVM (~40 ms)

    # the re-entrant lock llvmlite holds around every LLVM C call (inside its _LLVMLock wrapper)
    wrapper = ffi.lib._lock
    return getattr(wrapper, "_lock", wrapper)


_taken: list[Any] = []  # what _before acquired, released by _after in reverse order


def _before() -> None:
    # _guard first: a lock registered during the fork would be missing from the list yet could be
    # taken by its thread before the fork, and the child would inherit it held
    _guard.acquire()
    _taken.append(_guard)
    for lock in [*_locks, _llvm_lock()]:
        lock.acquire()
        _taken.append(lock)


def _after() -> None:
    # the forking thread took them all, and in the child that thread is the only one left
    while _taken:
        _taken.pop().release()
