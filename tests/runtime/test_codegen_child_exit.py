"""The LLVM code-generation child (backends/llvm/isolation.py) leaves no ResourceWarning at
interpreter exit: stopped and reaped by its owner, forgotten (never waited for) by a forked
copy of the owner, which starts its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PREAMBLE = """
import gc, os, sys
from tilec.backends.llvm import isolation, machine
host = machine.host_cpu()
TARGET = (host.triple, host.name, host.features)
MODULE = "define i32 @g() {\\n  ret i32 7\\n}\\n"
assert isolation.generate(MODULE, *TARGET).obj
"""
FORK = """
pid = os.fork()
if pid == 0:
    ok = bool(isolation.generate(MODULE, *TARGET).obj)  # a child of its own
    gc.collect()
    sys.exit(0 if ok else 3)  # a normal exit: the atexit hooks run in the copy too
_, status = os.waitpid(pid, 0)
assert os.WEXITSTATUS(status) == 0
isolation.prestart()
assert isolation.generate(MODULE, *TARGET).obj  # the owner's child still answers
"""


def _stderr_of(program: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-X", "dev", "-W", "always::ResourceWarning", "-c", program]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_exit_after_compiling_is_clean():
    assert "ResourceWarning" not in _stderr_of(PREAMBLE)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_copy_exits_cleanly():
    assert "ResourceWarning" not in _stderr_of(PREAMBLE + FORK)
