"""The launcher's C core passes its own tests (platform/launcher/tests/core_test.c: the grid
runner, fault trapping, Ctrl-C polling, argument packing, a missing libcuda), built with the
host's C compiler and, for Windows, with mingw-w64 and run under wine (ci/core_test.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _core_test():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("core_test", ROOT / "ci" / "core_test.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["core_test"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["native", "windows"])
def test_core_passes_its_tests(name: str, tmp_path: Path) -> None:
    core = _core_test()
    build = core.BUILDS[name]
    if sys.platform == "win32" and name == "windows":
        pytest.skip("on Windows the native build is the Windows build")
    lacking = core.missing(build)
    if lacking:
        install = "apt-get install gcc-mingw-w64-x86-64 wine wine64"
        pytest.skip(f"needs {', '.join(lacking)} on PATH ({install})")
    done = core.run(build, tmp_path)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.strip().endswith(" 0 failed"), done.stdout[-2000:]
