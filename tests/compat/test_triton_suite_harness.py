"""ci/triton_suite.py on a miniature checkout laid out like Triton's: the alias (``triton`` is
tilec, the checkout's own ``triton._internal_testing``), the CPU selection (interpreter marker,
``TRITON_INTERPRET=1``, ``--device=cpu``), per-function counts and the JSON summary."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "pytest.ini": "[pytest]\nmarkers = interpreter: runs under the interpreter\n",
    "python/test/conftest.py": """
        import pytest

        def pytest_addoption(parser):
            parser.addoption("--device", action="store", default="cuda")

        @pytest.fixture
        def device(request):
            return request.config.getoption("--device")
        """,
    "python/triton/_internal_testing.py": """
        import triton

        def which():
            return triton.__name__
        """,
    "python/test/unit/language/test_sample.py": """
        import os
        import pytest
        import tilec
        import triton
        import triton.language as tl
        from triton._internal_testing import which

        @pytest.mark.interpreter
        def test_alias(device):
            assert device == "cpu" and os.environ["TRITON_INTERPRET"] == "1"
            assert triton.language is tilec.language and tl.float32 is tilec.language.float32
            assert triton.jit is tilec.jit and which().startswith("tilec")

        @pytest.mark.interpreter
        @pytest.mark.parametrize("n", [1, 2])
        def test_counts(n):
            assert n == 1

        @pytest.mark.interpreter
        def test_skipped():
            pytest.skip("not here")

        def test_gpu_only():
            pass
        """,
}


@pytest.fixture
def checkout(tmp_path):
    pytest.importorskip("pytest_timeout")
    for name, text in FILES.items():
        path = tmp_path / "triton" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path / "triton"


def test_cpu_run_counts_per_function(checkout, tmp_path):
    out = tmp_path / "summary.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "ci" / "triton_suite.py"), str(checkout), "--json", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr  # one case fails on purpose
    summary = json.loads(out.read_text())
    functions = summary["functions"]
    assert functions["test_sample.py::test_alias"] == {
        "passed": 1, "failed": 0, "error": 0, "skipped": 0}  # fmt: skip
    assert functions["test_sample.py::test_counts"]["passed"] == 1
    assert functions["test_sample.py::test_counts"]["failed"] == 1
    assert functions["test_sample.py::test_skipped"]["skipped"] == 1
    assert "test_sample.py::test_gpu_only" not in functions  # not interpreter-marked
    assert summary["totals"] == {"passed": 2, "failed": 1, "error": 0, "skipped": 1}
    assert "test_sample.py::test_counts" in run.stdout
    assert "triton" not in sys.modules  # the alias lived in the child only


def test_not_a_checkout_is_refused(tmp_path):
    run = subprocess.run(
        [sys.executable, str(ROOT / "ci" / "triton_suite.py"), str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode != 0 and "is not a Triton checkout" in run.stderr


def _run(checkout, tmp_path, *extra):
    out = tmp_path / "summary.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "ci" / "triton_suite.py"), str(checkout), "--json", str(out),
         *extra],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return run, json.loads(out.read_text())


def test_a_file_that_fails_to_import_is_one_error(checkout, tmp_path):
    broken = checkout / "python/test/unit/language/test_broken.py"
    broken.write_text("import triton\ntriton.no_such_name\n")
    run, summary = _run(checkout, tmp_path)
    assert summary["per_file"]["test_broken.py"] == {
        "passed": 0, "failed": 0, "error": 1, "skipped": 0}  # fmt: skip
    assert summary["per_file"]["test_sample.py"]["passed"] == 2  # the other file still ran
    assert "test file" in run.stdout


def test_compiled_mode_runs_every_case_without_the_interpreter_flag(checkout, tmp_path):
    sample = checkout / "python/test/unit/language/test_sample.py"
    sample.write_text(
        sample.read_text().replace(
            'os.environ["TRITON_INTERPRET"] == "1"', '"TRITON_INTERPRET" not in os.environ'
        )
    )
    run, summary = _run(checkout, tmp_path, "--compiled", "--all-cases")
    functions = summary["functions"]
    assert functions["test_sample.py::test_alias"]["passed"] == 1, run.stdout + run.stderr
    assert functions["test_sample.py::test_gpu_only"]["passed"] == 1  # unmarked cases run
    assert (summary["mode"], summary["all_cases"]) == ("compiled", True)
