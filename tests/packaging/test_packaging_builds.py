"""Real builds (slow; run with TILEC_TEST_BUILDS=1, as `nox -s build` does): the abi3 platform
wheel carries the launcher, a build without a C compiler falls back to a pure wheel with a
warning, and `pip install .` in a fresh venv gives a working `tilec` with `tilec._launcher`."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import tilec

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("TILEC_TEST_BUILDS") != "1", reason="set TILEC_TEST_BUILDS=1 to build"
    ),
    pytest.mark.skipif(not (ROOT / "src" / "tilec").is_dir(), reason="needs the checkout"),
]


def build_wheel(out: Path, **env: str) -> tuple[Path, str]:
    pytest.importorskip("build")
    # A private build dir: a cached CMake configuration would hide the compiler settings.
    cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)]
    cmd.append(f"--config-setting=build-dir={out / 'build'}")
    run = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (wheel,) = out.glob("tilec-*.whl")
    return wheel, run.stdout + run.stderr


def test_wheel_is_abi3_and_carries_the_launcher(tmp_path):
    wheel, _ = build_wheel(tmp_path)
    assert f"tilec-{tilec.__version__}-cp310-abi3-" in wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "tilec/py.typed" in names
    assert any(n.startswith("tilec/_launcher") and n.endswith((".so", ".pyd")) for n in names)


@pytest.mark.skipif(sys.platform == "win32", reason="CC does not select MSVC")
def test_no_c_compiler_gives_a_pure_wheel_with_a_warning(tmp_path):
    wheel, log = build_wheel(tmp_path, CC="/bin/false", CMAKE_C_COMPILER="/bin/false")
    assert wheel.name.endswith("-py3-none-any.whl")
    assert not any("_launcher" in n for n in zipfile.ZipFile(wheel).namelist())
    assert "pure-Python fallback" in log


def test_pip_install_in_a_fresh_venv(tmp_path):
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only the venv's tilec
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    python = str(bindir / "python")
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", str(ROOT)]
    pip.append(f"--config-settings=build-dir={tmp_path / 'build'}")
    run = subprocess.run(pip, capture_output=True, text=True, cwd=tmp_path, env=clean)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    check = subprocess.run(
        [python, "-c", "import tilec._launcher as m; print(m.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env=clean,
    )  # fmt: skip
    assert check.returncode == 0 and "site-packages" in check.stdout, check.stderr
    version = subprocess.run(
        [str(bindir / "tilec"), "--version"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean,
    )
    assert version.stdout.strip() == f"tilec {tilec.__version__}"
