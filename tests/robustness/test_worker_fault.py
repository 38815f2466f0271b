"""A memory fault in a grid thread other than the launching one (a pool worker, or a thread of
its own when the pool is busy) becomes a LaunchError in the launching thread, and the pool goes
on running grids; so does a fault that a handler installed later (faulthandler) passes on. The
kernel faults only off the launching thread (or anywhere), so the fault is a worker's every
time; each scenario runs in a child process, so a fault that is not trapped fails the test
instead of ending pytest."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

needs_native = pytest.mark.skipif(
    importlib.util.find_spec("tilec._launcher") is None, reason="tilec._launcher is not built"
)
posix = pytest.mark.skipif(sys.platform == "win32", reason="the kernel calls pthread_self")

# args = (launching thread's pthread_self or 0 for "never fault", spin, counts): a program on
# any other thread reads address 8; every program spins, then counts itself in counts[pid].
KERNEL = """
declare i64 @pthread_self()
define void @entry(ptr %args, i32 %gx, i32 %gy, i32 %gz, i64 %begin, i64 %end, ptr %status) {
entry:
  %caller = load i64, ptr %args
  %spin.p = getelementptr i64, ptr %args, i64 1
  %spin = load i64, ptr %spin.p
  %counts.p = getelementptr i64, ptr %args, i64 2
  %counts.a = load i64, ptr %counts.p
  %counts = inttoptr i64 %counts.a to ptr
  %self = call i64 @pthread_self()
  %armed = icmp ne i64 %caller, 0
  %other = icmp ne i64 %self, %caller
  %bad = and i1 %armed, %other
  br i1 %bad, label %fault, label %loop
fault:
  %v = load volatile i64, ptr inttoptr (i64 8 to ptr)
  store volatile i64 %v, ptr %counts
  ret void
loop:
  %pid = phi i64 [%begin, %entry], [%next, %spun]
  %done = icmp sge i64 %pid, %end
  br i1 %done, label %exit, label %body
body:
  %slot = getelementptr i64, ptr %counts, i64 %pid
  br label %spinning
spinning:
  %i = phi i64 [0, %body], [%i.next, %spinning]
  %x = load volatile i64, ptr %slot
  store volatile i64 %x, ptr %slot
  %i.next = add i64 %i, 1
  %more = icmp slt i64 %i.next, %spin
  br i1 %more, label %spinning, label %spun
spun:
  %c = atomicrmw add ptr %slot, i64 1 seq_cst
  %next = add i64 %pid, 1
  br label %loop
exit:
  ret void
}
"""

CHILD = """
import sys, threading, time
import numpy as np
sys.path.insert(0, {runtime_tests!r})
from _launcher_llvm import jit
from tilec.errors import LaunchError
from tilec.backends import launcher

assert launcher.status().native
kernel = jit({ir!r})

def run(programs, threads, caller, spin=200_000):
    counts = np.zeros(programs, np.int64)
    args, status = np.zeros(3, np.uint64), np.zeros(4, np.int64)
    launcher.pack_args(b"QqP", (caller, spin, counts.ctypes.data), args.ctypes.data)
    try:
        launcher.run_cpu_grid(kernel.address, args.ctypes.data, (programs, 1, 1), threads,
                              status.ctypes.data)
    except LaunchError as exc:
        return counts, str(exc)
    return counts, None

{body}
print("survived")
"""


def run_child(body: str) -> str:
    code = CHILD.format(
        runtime_tests=str(Path(__file__).parents[1] / "runtime"), ir=KERNEL,
        body=textwrap.dedent(body),
    )  # fmt: skip
    env = {**os.environ, "TILEC_DISABLE_LAUNCHER": "0"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    assert proc.stdout.strip().endswith("survived"), proc.stdout
    return proc.stdout


@needs_native
@posix
def test_a_fault_in_a_pool_worker_is_a_launch_error_and_the_pool_survives() -> None:
    run_child("""
        me = threading.get_ident()
        for round in range(3):
            # the launching thread alone would need ~256 ms: the workers join in and fault
            counts, error = run(256, 4, me)
            assert error and "accessed memory outside its arguments: address 0x8" in error, error
            assert "grid (256, 1, 1)" in error, error
            counts, error = run(256, 4, 0, spin=1000)  # every thread, no fault
            assert error is None and (counts == 1).all(), (round, error, counts)
    """)


@needs_native
@posix
def test_a_fault_in_a_spawned_thread_is_a_launch_error() -> None:
    # Another thread holds the pool with a long grid, so this launch starts threads of its own.
    run_child("""
        me = threading.get_ident()
        started = threading.Event()
        def hold_pool():
            started.set()
            counts, error = run(2000, 4, 0)
            assert error is None and (counts == 1).all(), error
        holder = threading.Thread(target=hold_pool)
        holder.start()
        started.wait()
        time.sleep(0.05)  # likelier that the holder has the pool (either way must work)
        counts, error = run(256, 4, me)
        assert error and "accessed memory outside its arguments: address 0x8" in error, error
        holder.join()
        counts, error = run(256, 4, 0, spin=1000)
        assert error is None and (counts == 1).all(), (error, counts)
    """)


@needs_native
@posix
def test_a_fault_passed_on_by_a_later_faulthandler_is_a_launch_error_without_an_address() -> None:
    # faulthandler, enabled after the launcher installed its handler, reports the fault, then
    # restores the launcher's handler and raises the signal again: that signal carries the
    # sender's pid where a fault has its address, which must not be reported as one.
    run_child("""
        import faulthandler
        run(8, 2, 0, spin=10)  # installs the launcher's handler
        faulthandler.enable()
        counts, error = run(64, 1, 1)  # every program faults (no thread has id 1)
        assert error and "accessed memory outside its arguments (address unknown)" in error, error
        counts, error = run(64, 1, 1)  # faulthandler is off again: the fault's own address
        assert error and "accessed memory outside its arguments: address 0x8" in error, error
        counts, error = run(64, 2, 0, spin=1000)
        assert error is None and (counts == 1).all(), (error, counts)
    """)


def test_fallback_turns_a_fault_reported_by_ctypes_in_a_worker_into_a_launch_error() -> None:
    # On Windows ctypes reports a hardware fault in the called code as OSError; the fallback's
    # grid run must raise it as a LaunchError in the launching thread, whichever thread hit it.
    # A Python callable stands in for the kernel: it faults on every thread but this one.
    import threading
    import time

    import numpy as np

    from tilec.backends.fallback_grid import GridRun
    from tilec.errors import LaunchError

    me, ran = threading.get_ident(), []

    def entry(args, gx, gy, gz, begin, end, status):
        if threading.get_ident() != me:
            raise OSError("exception: access violation reading 0x0000000000000008")
        ran.append((begin, end))
        time.sleep(0.001)  # leaves the worker time to claim programs

    status = np.zeros(4, np.int64)
    with pytest.raises(LaunchError, match=r"access violation reading 0x0+8.*grid \(400, 1, 1\)"):
        GridRun(entry, 0, (400, 1, 1), status.ctypes.data).run(2)
    assert sum(end - begin for begin, end in ran) < 400  # the grid stopped early
