"""A process that forks while another thread compiles gives a child that can compile and launch:
fork waits until no thread holds a tilec LLVM lock or is inside an LLVM call."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_SCRIPT = """
import os, threading, time
import numpy as np
import tilec, tilec.language as tl

def make():
    @tilec.jit
    def k(x, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x + offs, tl.load(x + offs) + 1.0)
    return k

stop = False
def spin():
    while not stop:
        make()[(1,)](np.zeros(16, np.float32), BLOCK=16)

threading.Thread(target=spin, daemon=True).start()
time.sleep(0.5)
for i in range(4):
    pid = os.fork()
    if pid == 0:
        import faulthandler
        faulthandler.dump_traceback_later(20, exit=True)  # a hang becomes exit code 1
        x = np.zeros(16, np.float32)
        make()[(1,)](x, BLOCK=16)
        os._exit(0 if (x == 1).all() else 3)
    _, status = os.waitpid(pid, 0)
    assert status == 0, f"child {i} ended with status {status}"
    time.sleep(0.05)
stop = True
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_fork_while_another_thread_compiles(tmp_path: Path) -> None:
    script = tmp_path / "fork_while_compiling.py"  # kernels need a source file
    script.write_text(textwrap.dedent(_SCRIPT))
    env = {**os.environ, "TILEC_CACHE": "0"}
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True, text=True, timeout=240, env=env,
    )  # fmt: skip
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]
