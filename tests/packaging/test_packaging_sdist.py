"""The sdist: platform/ sources in, build and cache junk out (built in-process by
scikit-build-core, without CMake, so it is fast)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JUNK = ("build/", "dist/", ".nox/", ".venv/", "site/", "__pycache__/", ".pytest_cache/")


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory) -> list[str]:
    if not (ROOT / "src" / "tilec").is_dir() or not (ROOT / "platform").is_dir():
        pytest.skip("needs the source checkout")
    build = pytest.importorskip("scikit_build_core.build")
    out = tmp_path_factory.mktemp("sdist")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        name = build.build_sdist(str(out))
    finally:
        os.chdir(cwd)
    with tarfile.open(out / name) as tar:
        top = name.removesuffix(".tar.gz") + "/"
        return [m.name.removeprefix(top) for m in tar.getmembers() if m.isfile()]


def test_sdist_has_the_launcher_sources(sdist_names):
    for needed in (
        "pyproject.toml",
        "platform/CMakeLists.txt",
        "platform/launcher/grid.c",
        "platform/launcher/pack.c",
        "platform/launcher/cuda.c",
        "platform/launcher/module.c",
        "platform/launcher/tilec_launcher.h",
        "src/tilec/__init__.py",
        "src/tilec/py.typed",
        "LICENSE",
        "README.md",
    ):
        assert needed in sdist_names


def test_sdist_has_no_junk(sdist_names):
    for name in sdist_names:
        assert not any(part in f"/{name}" for part in (f"/{j}" for j in JUNK)), name
        assert not name.endswith((".pyc", ".so", ".pyd", ".dylib", ".whl", ".o")), name
