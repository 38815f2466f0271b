"""Write tests/slow.txt, the tests that a plain ``python -m pytest`` leaves out, from durations.

    python ci/slow_tests.py                      # run the whole suite (-n 2) and rewrite the list
    python ci/slow_tests.py --junit RESULTS.xml  # rewrite it from an earlier run's junit XML
    python ci/slow_tests.py --threshold 0.5      # another cut (seconds per test)

A test is slow when its setup, call and teardown took at least the threshold. The list names a
whole file when every test that ran in it was slow, a test function when all its parameters were,
and single node ids otherwise; a skipped test never counts as slow. Measure on a 2-core machine
with nothing else running: the README promises the plain run's time on one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "tests" / "slow.txt"


@dataclass(frozen=True)
class Result:
    nodeid: str
    seconds: float
    skipped: bool

    @property
    def file(self) -> str:
        return self.nodeid.split("::")[0]

    @property
    def function(self) -> str:
        return self.nodeid.split("[")[0]


def _nodeid(classname: str, name: str) -> str:
    """junit names a test by dotted module (and class) plus name; find the file among them."""
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if (ROOT / path).is_file():
            return "::".join([path, *parts[i:], name])
    raise SystemExit(f"no test file for {classname}::{name}")


def read_junit(path: Path) -> list[Result]:
    return [
        Result(
            _nodeid(case.get("classname", ""), case.get("name", "")),
            float(case.get("time", 0)),
            any(child.tag == "skipped" for child in case),
        )
        for case in ET.parse(path).iter("testcase")
    ]


def run_suite(junit: Path, workers: int) -> None:
    cmd = [sys.executable, "-m", "pytest", "--slow", "-q", "-p", "no:cacheprovider"]
    cmd += ["-n", str(workers), "--dist", "worksteal", f"--junitxml={junit}"]
    print("+", " ".join(cmd), flush=True)
    if subprocess.run(cmd, cwd=ROOT).returncode not in (0, 1):  # 1: failures still have times
        raise SystemExit("pytest did not run the suite")


def entries(results: list[Result], threshold: float) -> list[str]:
    """The shortest list of files, functions and node ids that names exactly the slow tests."""
    ran = [r for r in results if not r.skipped]
    slow = {r.nodeid for r in ran if r.seconds >= threshold}
    by_file: dict[str, list[Result]] = defaultdict(list)
    for r in ran:
        by_file[r.file].append(r)
    out: list[str] = []
    for file, tests in sorted(by_file.items()):
        if all(r.nodeid in slow for r in tests):
            out.append(file)
            continue
        by_function: dict[str, list[Result]] = defaultdict(list)
        for r in tests:
            by_function[r.function].append(r)
        for function, cases in by_function.items():
            hits = [r.nodeid for r in cases if r.nodeid in slow]
            out += [function] if len(hits) == len(cases) else hits
    return out


def render(results: list[Result], names: list[str], threshold: float) -> str:
    ran = [r for r in results if not r.skipped]
    slow = [r for r in ran if r.seconds >= threshold]
    kept = sum(r.seconds for r in ran) - sum(r.seconds for r in slow)
    header = [
        "# The tests a plain `python -m pytest` leaves out (tests/conftest.py marks them slow);",
        "# `python -m pytest --slow` runs them too, `python -m pytest -m slow` only them, CI both.",
        "# Written by `python ci/slow_tests.py` (run it again to refresh the list): every test",
        f"# that took >= {threshold:g} s (setup, call and teardown) on a 2-core machine;",
        f"# {len(slow)} slow tests took {sum(r.seconds for r in slow):.0f} s together, "
        f"the other {len(ran) - len(slow)} {kept:.0f} s.",
    ]
    return "\n".join([*header, *names]) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--junit", type=Path, help="an earlier run's junit XML (default: run the suite)")
    p.add_argument("--threshold", type=float, default=0.2, help="seconds per test (0.2)")
    p.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (2)")
    args = p.parse_args()
    junit = args.junit
    if junit is None:
        junit = Path(tempfile.mkdtemp()) / "durations.xml"
        run_suite(junit, args.workers)
    results = read_junit(junit)
    names = entries(results, args.threshold)
    LIST.write_text(render(results, names, args.threshold))
    print(f"wrote {LIST.relative_to(ROOT)}: {len(names)} entries")


if __name__ == "__main__":
    main()
