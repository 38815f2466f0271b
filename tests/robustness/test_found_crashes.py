"""Two ways a wrong program used to take the process down, each run in a child process: a store
through a read-only numpy array (a segfault on a read-only mapping) and os.fork() while another
thread compiles (the child deadlocked on a lock the compiling thread held)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tilec

SRC = Path(tilec.__file__).resolve().parents[1]


def _child(folder: Path, code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` from a file (kernels need their source on disk) in a child process."""
    script = folder / "scenario.py"
    script.write_text(textwrap.dedent(code))
    env = {**os.environ, "PYTHONPATH": str(SRC), "TILEC_CACHE": "0"}
    try:
        return subprocess.run(
            [sys.executable, "-X", "faulthandler", str(script)],
            capture_output=True, text=True, timeout=timeout, env=env,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (deadlock?)\n{exc.stderr or ''}")


def test_store_through_a_read_only_array_is_a_usage_error(tmp_path: Path) -> None:
    done = _child(
        tmp_path,
        f"""
        import numpy as np, tilec, tilec.language as tl
        from tilec.errors import UsageError
        @tilec.jit
        def fill(out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, offs.to(tl.float32))
        @tilec.jit
        def copy(x_ptr, out_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs))
        np.zeros(16, np.float32).tofile({str(tmp_path / "data")!r})
        ro = np.memmap({str(tmp_path / "data")!r}, np.float32, mode="r")
        out = np.zeros(16, np.float32)
        copy[(1,)](ro, out, BLOCK=16)  # reading a read-only array is fine
        try:
            fill[(1,)](ro, BLOCK=16)
        except UsageError as exc:
            assert "out_ptr" in str(exc) and "read-only" in str(exc), exc
        else:
            raise SystemExit("no error")
    """,
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_while_another_thread_compiles(tmp_path: Path) -> None:
    done = _child(
        tmp_path,
        """
        import os, threading, time, numpy as np, tilec, tilec.language as tl
        def make():
            @tilec.jit
            def k(x, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(x + offs, tl.load(x + offs) + 1.0)
            return k
        stop, ready = threading.Event(), threading.Event()
        def spin():
            while not stop.is_set():
                make()[(1,)](np.zeros(16, np.float32), BLOCK=16)
                ready.set()
        threading.Thread(target=spin, daemon=True).start()
        # fork only once the first compile has imported everything: a fork in the middle of
        # another thread's import can deadlock any Python program (module import locks)
        ready.wait(120)
        for i in range(6):
            pid = os.fork()
            if pid == 0:
                x = np.zeros(16, np.float32)
                make()[(1,)](x, BLOCK=16)
                os._exit(0 if (x == 1).all() else 3)
            deadline = time.time() + 30
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.time() > deadline:
                    os.kill(pid, 9)
                    raise SystemExit(f"forked child {i} hung")
                time.sleep(0.02)
            if status != 0:
                raise SystemExit(f"forked child {i}: wait status {status}")
            time.sleep(0.1)
        stop.set()
    """,
    )
    assert done.returncode == 0, done.stderr[-2000:]
