"""A CPU kernel that faults (bad address, stack overflow, integer division by zero) stops its
grid with a LaunchError from the native launcher and the process goes on; a fault outside kernel
code still reaches the previous handler. Each scenario runs in a child process."""

from __future__ import annotations

import importlib.util
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

needs_native = pytest.mark.skipif(
    importlib.util.find_spec("tilec._launcher") is None,
    reason="tilec._launcher is not built (run ci/build_inplace.sh)",
)

# Program args[0] faults: it loads from address args[1], divides by args[2], or (args[3] = 1)
# recurses until its stack overflows; every other program counts itself in counts = args[4].
FAULT_KERNEL = """
define void @deep(ptr %p) {
  %a = alloca [4096 x i8]
  call void @deep(ptr %a)
  store volatile i8 1, ptr %a
  ret void
}
define void @entry(ptr %args, i32 %gx, i32 %gy, i32 %gz, i64 %begin, i64 %end, ptr %status) {
entry:
  %bad = load i64, ptr %args
  %addr.p = getelementptr i64, ptr %args, i64 1
  %addr = load i64, ptr %addr.p
  %div.p = getelementptr i64, ptr %args, i64 2
  %div = load i64, ptr %div.p
  %rec.p = getelementptr i64, ptr %args, i64 3
  %rec = load i64, ptr %rec.p
  %counts.p = getelementptr i64, ptr %args, i64 4
  %counts.a = load i64, ptr %counts.p
  %counts = inttoptr i64 %counts.a to ptr
  br label %loop
loop:
  %pid = phi i64 [%begin, %entry], [%next, %count]
  %done = icmp sge i64 %pid, %end
  br i1 %done, label %exit, label %check
check:
  %slot = getelementptr i64, ptr %counts, i64 %pid
  %is.bad = icmp eq i64 %pid, %bad
  br i1 %is.bad, label %fault, label %count
fault:
  %deep = icmp eq i64 %rec, 1
  br i1 %deep, label %overflow, label %access
overflow:
  call void @deep(ptr %slot)
  br label %count
access:
  %p = inttoptr i64 %addr to ptr
  %v = load volatile i64, ptr %p
  %q = sdiv i64 %v, %div
  store volatile i64 %q, ptr %slot
  br label %count
count:
  %c = atomicrmw add ptr %slot, i64 1 seq_cst
  %next = add i64 %pid, 1
  br label %loop
exit:
  ret void
}
"""

_CHILD = """
import sys
import numpy as np
sys.path.insert(0, {here!r})
from _launcher_llvm import jit
from tilec.errors import LaunchError
from tilec.backends import launcher

kernel = jit({ir!r})
valid = np.ones(1, np.int64)

def run(grid, threads, bad=-1, addr=valid.ctypes.data, div=1, rec=0):
    counts = np.zeros(grid[0] * grid[1] * grid[2], np.int64)
    args, status = np.zeros(5, np.uint64), np.zeros(4, np.int64)
    launcher.pack_args(b"qQqqP", (bad, addr, div, rec, counts.ctypes.data), args.ctypes.data)
    try:
        launcher.run_cpu_grid(kernel.address, args.ctypes.data, grid, threads, status.ctypes.data)
    except LaunchError as exc:
        return counts, str(exc)
    return counts, None

{body}
print("survived")
"""


def run_child(body: str) -> subprocess.CompletedProcess[str]:
    here = str(Path(__file__).parent)
    code = _CHILD.format(here=here, ir=FAULT_KERNEL, body=textwrap.dedent(body))
    env = {**os.environ, "TILEC_DISABLE_LAUNCHER": "0"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )


def assert_survived(body: str) -> str:
    proc = run_child(body)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().endswith("survived"), proc.stdout
    return proc.stdout


@needs_native
def test_bad_address_is_a_launch_error_and_the_launcher_still_works() -> None:
    out = assert_survived("""
        for threads in (1, 4, 1, 4):  # twice each: the thread's signal mask is restored
            counts, error = run((64, 1, 1), threads, bad=37, addr=8)
            assert error and "accessed memory outside its arguments: address 0x8" in error, error
            assert "outputs are undefined" in error and "grid (64, 1, 1)" in error, error
            counts, error = run((64, 1, 1), threads)
            assert error is None and (counts == 1).all(), (error, counts)
        counts, error = run((1, 1, 1), 1, bad=0, addr=8)
        print(error)
    """)
    assert "in program (0, 0, 0) of grid (1, 1, 1)" in out


@needs_native
def test_a_fault_stops_handing_out_chunks() -> None:
    assert_survived("""
        counts, error = run((200000, 1, 1), 4, bad=0, addr=8)
        assert error is not None
        assert counts.sum() < 199999, counts.sum()  # the grid stopped early
    """)


@needs_native
def test_stack_overflow_in_a_kernel_is_a_launch_error() -> None:
    assert_survived("""
        for threads in (1, 3):
            counts, error = run((8, 1, 1), threads, bad=5, rec=1)
            assert error and "accessed memory outside its arguments" in error, error
        counts, error = run((8, 1, 1), 3)
        assert error is None and (counts == 1).all()
    """)


@needs_native
@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="x86 traps")
def test_integer_division_by_zero_is_a_launch_error() -> None:
    assert_survived("""
        counts, error = run((16, 1, 1), 2, bad=3, div=0)
        assert error and "arithmetic fault" in error, error
    """)


@needs_native
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signal chaining")
@pytest.mark.parametrize("faulthandler", [False, True])
def test_a_fault_outside_kernel_code_still_ends_the_process(faulthandler: bool) -> None:
    proc = run_child(f"""
        import ctypes, faulthandler
        if {faulthandler}:
            faulthandler.enable()
        assert run((8, 1, 1), 2)[1] is None  # the handler is installed now
        ctypes.string_at(0)
    """)
    assert proc.returncode in (-11, -10, 139, 138), (proc.returncode, proc.stderr[-2000:])
    assert "survived" not in proc.stdout
    assert ("Segmentation fault" in proc.stderr or "Bus error" in proc.stderr) == faulthandler


@needs_native
def test_out_of_bounds_tilec_kernel_is_a_launch_error(tmp_path: Path) -> None:
    script = tmp_path / "oob.py"  # kernels need a source file
    script.write_text(
        textwrap.dedent("""
        import numpy as np, tilec, tilec.language as tl
        from tilec.errors import LaunchError

        @tilec.jit
        def k(x, out):
            tl.store(out, tl.load(x + 10**12))

        try:
            k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32))
        except LaunchError as exc:
            assert "accessed memory outside its arguments" in str(exc), exc
            print("caught")
    """)
    )
    env = {**os.environ, "TILEC_DISABLE_LAUNCHER": "0", "TILEC_CACHE": "0"}
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env
    )
    assert proc.returncode == 0 and "caught" in proc.stdout, proc.stderr[-3000:]


def test_the_fallback_says_it_does_not_trap_faults() -> None:
    from tilec import config
    from tilec.backends import launcher

    with config.override(disable_launcher=True):
        assert "ends the process" in launcher.status().reason
