"""Build and run the launcher's C core tests (platform/launcher/tests/core_test.c): natively with
the host's C compiler, and for Windows with mingw-w64, run under wine.

    python ci/core_test.py [native] [windows]      (default: both)

Exits 0 when every requested build passed; a build whose tools are missing is a failure here
(tests/packaging/test_c_core.py skips it instead, naming what is missing).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "platform" / "launcher"
CORE = ("grid.c", "pack.c", "fault.c", "cuda.c")
FLAGS = ("-std=c11", "-O2", "-Wall", "-Wextra", "-Werror")


@dataclass(frozen=True)
class Build:
    name: str
    compiler: tuple[str, ...]  # candidates, the first found is used
    libs: tuple[str, ...]
    runner: tuple[str, ...]  # what runs the program ("" : itself)
    exe: str


BUILDS = {
    "native": Build(
        "native", ("cc", "gcc", "clang"), ("-lpthread", "-ldl", "-lm"), (), "core_test"
    ),
    "windows": Build(
        "windows", ("x86_64-w64-mingw32-gcc",), ("-static",), ("wine",), "core_test.exe"
    ),
}


def missing(build: Build) -> list[str]:
    """The tools this build needs that are not on PATH."""
    need = [] if any(shutil.which(c) for c in build.compiler) else [build.compiler[0]]
    return need + [r for r in build.runner if not shutil.which(r)]


def run(build: Build, out: Path) -> subprocess.CompletedProcess[str]:
    """Compile and run one build; the completed run of the test program."""
    cc = next(c for c in build.compiler if shutil.which(c))
    exe = out / build.exe
    sources = [str(LAUNCHER / s) for s in CORE] + [str(LAUNCHER / "tests" / "core_test.c")]
    subprocess.run([cc, *FLAGS, "-I", str(LAUNCHER), *sources, "-o", str(exe), *build.libs],
                   check=True, capture_output=True, text=True)  # fmt: skip
    env = {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(out / "wine")}
    return subprocess.run([*build.runner, str(exe)], capture_output=True, text=True, env=env,
                          timeout=600)  # fmt: skip


def main(names: list[str]) -> int:
    failed = 0
    for name in names or list(BUILDS):
        build = BUILDS[name]
        if missing(build):
            print(f"{name}: missing {', '.join(missing(build))}")
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix="tilec-core-") as tmp:
            try:
                done = run(build, Path(tmp))
            except subprocess.CalledProcessError as exc:
                print(f"{name}: build failed\n{exc.stderr}")
                failed += 1
                continue
        summary = done.stdout.strip().splitlines()[-1:] or ["(no output)"]
        print(f"{name}: exit {done.returncode}, {summary[0]}")
        if done.returncode != 0:
            print(done.stdout[-4000:], done.stderr[-2000:])
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
