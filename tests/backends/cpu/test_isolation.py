"""LLVM code generation runs in a child process: an LLVM assertion aborts the child, and the
kernel is rebuilt without the loop vectorizer instead of taking the Python process down.

data/vectorizer_assert.ll is IR that made LLVM 22's loop vectorizer fail an assertion
("VPlan cost model and legacy cost model disagreed") for znver4; it was produced by this
backend before min/max reductions avoided that pattern."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tilec.backends.llvm import isolation
from tilec.errors import LoweringError

DATA = Path(__file__).parent / "data" / "vectorizer_assert.ll"
TARGET = ("x86_64-unknown-linux-gnu", "znver4", "")


def _aborts_in_process() -> bool:
    code = (
        "import sys; from tilec.backends.llvm import codegen_worker as w; "
        "w.generate(open(sys.argv[1]).read(), *sys.argv[2:5], 3, True, False)"
    )
    r = subprocess.run([sys.executable, "-c", code, str(DATA), *TARGET], capture_output=True)
    return r.returncode != 0


def test_an_llvm_abort_leaves_the_process_running() -> None:
    if not _aborts_in_process():
        pytest.skip("this LLVM build does not assert on the sample IR")
    out = isolation.generate(DATA.read_text(), *TARGET, level=3)
    assert out.obj[:4] == b"\x7fELF"  # rebuilt without the loop vectorizer
    assert "<16 x float>" not in out.llir


def test_rejected_ir_is_a_lowering_error() -> None:
    with pytest.raises(LoweringError, match="LLVM rejected"):
        isolation.generate("define void @f() { ret i32 0 }", *TARGET)
    # the child survives a rejected module and serves the next request
    good = isolation.generate("define i32 @g() {\n  ret i32 7\n}\n", *TARGET)
    assert good.obj


def test_without_a_usable_interpreter_it_works_in_process(monkeypatch, tmp_path) -> None:
    fake = tmp_path / "not-python"
    fake.write_text("")
    isolation.shutdown()
    monkeypatch.setattr(sys, "executable", str(fake))
    monkeypatch.setattr(isolation, "_unavailable", False)
    try:
        out = isolation.generate("define i32 @g() {\n  ret i32 7\n}\n", *TARGET)
        assert out.obj and isolation._unavailable
    finally:
        isolation.shutdown()
        isolation._unavailable = False


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_process_gets_its_own_child() -> None:
    import os

    module = "define i32 @g() {\n  ret i32 7\n}\n"
    isolation.generate(module, *TARGET)  # this process's child exists now
    pid = os.fork()
    if pid == 0:  # the copy compiles through a child of its own, then leaves at once
        try:
            ok = bool(isolation.generate(module, *TARGET).obj)
        except BaseException:
            ok = False
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert isolation.generate(module, *TARGET).obj  # the parent's child still answers
