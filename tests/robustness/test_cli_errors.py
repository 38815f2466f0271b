"""``tilec compile`` on a wrong kernel or with an unusable output path prints one
``tilec: error:`` line (file:line:col for kernel code) and exits non-zero, without a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilec.cli import main

SOURCE = """import tilec
import tilec.language as tl


@tilec.jit
def wrong(x, out):
    tl.store(out + tl.arange(0, 10), tl.load(x))


@tilec.jit
def right(x, out):
    tl.store(out, tl.load(x))
"""


@pytest.fixture
def kernels(tmp_path: Path) -> Path:
    path = tmp_path / "cli_kernels.py"
    path.write_text(SOURCE)
    return path


def test_wrong_kernel(kernels: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compile", f"{kernels}:wrong", "-s", "*fp32, *fp32"])
    err = capsys.readouterr().err
    assert code == 2  # a compile error in the kernel: usage-class exit code
    assert err.startswith(f"tilec: error: {kernels}:7:20: ") and "power of 2, got 10" in err
    assert "Traceback" not in err


def test_output_in_a_missing_folder(
    kernels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "missing" / "out.tir"
    code = main(["compile", f"{kernels}:right", "-s", "*fp32, *fp32", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("tilec: error:") and str(target) in err
    assert "Traceback" not in err
