"""Every CI task as one command, so nox, the GitHub workflows and a laptop run the same thing.

    python ci/tasks.py TASK [ARGS...]      (tasks: see TASKS below, or --help)

Each task runs its tools with the current interpreter (``python -m ...``), in the repository
root, and exits non-zero on the first failure. Written in Python, not shell, so it runs
unchanged on Linux, Windows and macOS.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def run(*cmd: str | Path, env: dict[str, str] | None = None) -> None:
    """Run a command in the repository root; stop with its exit code if it fails."""
    args = [str(c) for c in cmd]
    print("+", " ".join(args), flush=True)
    code = subprocess.call(args, cwd=ROOT, env={**os.environ, **(env or {})})
    if code != 0:
        sys.exit(code)


def source_env() -> dict[str, str]:
    """Run against src/ when tilec is not installed in this interpreter (``nox -fb none``)."""
    probe = subprocess.run([PY, "-c", "import tilec"], cwd=ROOT / "ci", capture_output=True)
    if probe.returncode == 0:
        return {}
    paths = [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(paths)}


def lint(args: Sequence[str]) -> None:
    run(PY, "-m", "ruff", "check", ".", *args)
    run(PY, "-m", "ruff", "format", "--check", ".")


def types(args: Sequence[str]) -> None:
    run(PY, "-m", "mypy", *args)  # files and settings come from [tool.mypy]


def tests(args: Sequence[str]) -> None:
    """The CPU suite, the slow tests included (GPU tests are deselected; the packaging builds
    skip unless asked)."""
    run(PY, "-m", "pytest", "-m", "not gpu", *args, env=source_env())


def gpu(args: Sequence[str]) -> None:
    """Only the tests marked gpu, for a machine with an NVIDIA GPU and driver."""
    run(PY, "-m", "pytest", "-m", "gpu", *args, env=source_env())


def bench(args: Sequence[str]) -> None:
    """Run the given benchmark scripts in bench/ (default: all of them)."""
    names = list(args) or sorted(p.stem for p in (ROOT / "bench").glob("*.py"))
    if not names:
        sys.exit("bench/ has no benchmark scripts yet")
    for name in names:
        run(PY, ROOT / "bench" / f"{Path(name).stem}.py", env=source_env())


def docs(args: Sequence[str]) -> None:
    run(PY, "-m", "mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml", *args)


def build(args: Sequence[str]) -> None:
    """sdist + abi3 wheel into dist/, the Linux wheel repaired to its manylinux tag as
    cibuildwheel does (auditwheel), twine check, abi3audit (the launcher uses only the stable
    ABI of its minimum CPython), then the packaging tests including the real builds (wheel
    contents and tag, pure fallback without a C compiler, fresh-venv install)."""
    dist = ROOT / "dist"
    for old in dist.glob("tilec-*"):
        old.unlink()
    run(PY, "-m", "build", "--outdir", dist, *args)
    run(PY, "ci/repair_wheel.py", dist)
    run(PY, "-m", "twine", "check", "--strict", *sorted(dist.glob("tilec-*")))
    run(PY, "ci/check_dist.py", dist)
    run(PY, "-m", "abi3audit", "--strict", "--report", *sorted(dist.glob("tilec-*.whl")))
    run(PY, "-m", "pytest", "-q", "tests/packaging", env={"TILEC_TEST_BUILDS": "1", **source_env()})


def ci_config(args: Sequence[str]) -> None:
    """The cibuildwheel matrix for every OS, pyproject.toml and every workflow validate."""
    for platform in ("linux", "windows", "macos"):
        run(PY, "-m", "cibuildwheel", "--print-build-identifiers", "--platform", platform, ".")
    run(PY, "-m", "validate_pyproject", "pyproject.toml")
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    if not workflows:
        sys.exit(".github/workflows has no workflows")
    run(PY, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)


def cross(args: Sequence[str]) -> None:
    """Compile the launcher's C core for other OSes with zig cc and check the objects."""
    run(PY, "ci/cross.py", *args)


def core(args: Sequence[str]) -> None:
    """The C core's own tests: native, and the Windows build (mingw-w64) under wine."""
    run(PY, "ci/core_test.py", *args)


def wheels(args: Sequence[str]) -> None:
    """cibuildwheel for this OS (Linux needs Docker or Podman) into wheelhouse/."""
    run(PY, "-m", "cibuildwheel", "--output-dir", "wheelhouse", *args, ".")


TASKS: dict[str, Callable[[Sequence[str]], None]] = {
    "lint": lint,
    "types": types,
    "tests": tests,
    "gpu": gpu,
    "bench": bench,
    "docs": docs,
    "build": build,
    "ci_config": ci_config,
    "cross": cross,
    "core": core,
    "wheels": wheels,
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=sorted(TASKS))
    parser.add_argument("args", nargs=argparse.REMAINDER, help="passed to the task's tool")
    ns = parser.parse_args(argv)
    TASKS[ns.task](ns.args)


if __name__ == "__main__":
    main()
