"""The slow tests: tests/slow.txt names real files, its entries match at node-id boundaries,
ci/slow_tests.py groups a list the way the file says, and a plain run says what it left out."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


suite = _load("suite_conftest", ROOT / "tests" / "conftest.py")
slow_tests = _load("slow_tests", ROOT / "ci" / "slow_tests.py")


def test_every_entry_names_a_test_file_or_folder():
    stale = [e for e in suite._slow_entries() if not (ROOT / e.split("::")[0]).exists()]
    assert not stale, (
        f"tests/slow.txt names what no longer exists (rerun ci/slow_tests.py): {stale}"
    )


ENTRIES = (
    "tests/a/test_x.py::test_f",
    "tests/a/sub",
    "tests/b/test_z.py::test_h[slow]",
    "tests/c/test_k.py::TestC",
    "tests/d/test_w.py",
)


@pytest.mark.parametrize(
    ("nodeid", "listed"),
    [
        ("tests/a/test_x.py::test_f", True),
        ("tests/a/test_x.py::test_f[1-2]", True),
        ("tests/a/test_x.py::test_fg", False),
        ("tests/a/test_xy.py::test_f", False),
        ("tests/a/sub/test_y.py::test_g", True),
        ("tests/a/subway/test_y.py::test_g", False),
        ("tests/b/test_z.py::test_h[slow]", True),
        ("tests/b/test_z.py::test_h[fast]", False),
        ("tests/b/test_z.py::test_hh", False),
        ("tests/c/test_k.py::TestC::test_f", True),
        ("tests/c/test_k.py::TestCD::test_f", False),
        ("tests/d/test_w.py::test_any[0]", True),
    ],
)
def test_an_entry_matches_at_a_boundary(nodeid, listed):
    assert suite._listed(nodeid, ENTRIES) is listed


def test_the_list_names_files_then_functions_then_node_ids():
    R = slow_tests.Result
    results = [
        R("tests/a/test_all.py::test_f[1]", 1.0, False),
        R("tests/a/test_all.py::test_g", 2.0, False),
        R("tests/a/test_all.py::test_gpu", 0.0, True),  # skipped: neither slow nor fast
        R("tests/a/test_some.py::test_f[1]", 1.0, False),
        R("tests/a/test_some.py::test_f[2]", 1.0, False),
        R("tests/a/test_some.py::test_g[1]", 1.0, False),
        R("tests/a/test_some.py::test_g[2]", 0.01, False),
        R("tests/a/test_some.py::test_h", 0.01, False),
        R("tests/a/test_fast.py::test_f", 0.01, False),
        R("tests/a/test_skipped.py::test_f", 9.0, True),
    ]
    assert slow_tests.entries(results, 0.5) == [
        "tests/a/test_all.py",
        "tests/a/test_some.py::test_f",
        "tests/a/test_some.py::test_g[1]",
    ]


def _collect(*args: str) -> str:
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0"]
    cmd += ["-p", "no:cacheprovider", *args]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@pytest.mark.slow  # two collections in fresh interpreters
def test_a_plain_run_says_how_many_slow_tests_it_leaves_out():
    folder = str(Path(suite._slow_entries()[0].split("::")[0]).parent)
    plain = _collect(folder)
    left_out = re.search(r"^(\d+) slow tests were left out \(deselected\): (.*)$", plain, re.M)
    assert left_out, plain
    assert "`python -m pytest --slow` runs everything" in left_out[2]
    assert f"{left_out[1]} deselected" in plain  # and pytest's own count agrees
    only_slow = _collect(folder, "-m", "slow")
    assert re.search(rf"^{left_out[1]}/\d+ tests collected", only_slow, re.M), only_slow
    assert "slow tests were left out" not in only_slow
