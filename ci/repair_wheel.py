"""Give the Linux wheels in a dist folder the manylinux (or musllinux) tag a package index
accepts, with the repair command cibuildwheel runs in CI ([tool.cibuildwheel.linux]
repair-wheel-command in pyproject.toml), so a local build and a release wheel are repaired alike.

    python ci/repair_wheel.py DIST_DIR

A wheel built on Linux is tagged ``linux_x86_64``, which no index takes. auditwheel checks that
the native launcher links only libraries every manylinux system has (it links only libc, and it
dlopens libcuda at run time) and retags the wheel with the oldest policy its symbol versions
allow: that follows the build machine's glibc (manylinux_2_34 where glibc >= 2.34, which moved
pthread and dlopen into libc; the manylinux_2_28 image cibuildwheel uses gives an older tag).
Windows and macOS wheels already carry index-ready tags; pure ``py3-none-any`` wheels need none.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def repair_command(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """The Linux repair-wheel-command of [tool.cibuildwheel.linux], with its placeholders."""
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the one key, read from its section
        section = text.split("[tool.cibuildwheel.linux]", 1)[1].split("\n[", 1)[0]
        return re.search(r'^repair-wheel-command\s*=\s*"([^"]+)"', section, re.M).group(1)
    return tomllib.loads(text)["tool"]["cibuildwheel"]["linux"]["repair-wheel-command"]


def needs_repair(wheel: Path) -> bool:
    """A wheel with the plain Linux platform tag (``-linux_x86_64.whl``, ``-linux_aarch64.whl``)."""
    return re.search(r"-linux_[A-Za-z0-9_]+\.whl$", wheel.name) is not None


def repair(wheel: Path, dest: Path) -> Path:
    """Repair ``wheel`` into ``dest`` with pyproject's command; returns the repaired wheel."""
    with tempfile.TemporaryDirectory() as out:
        argv = [
            word.replace("{dest_dir}", out).replace("{wheel}", str(wheel))
            for word in shlex.split(repair_command())
        ]
        if argv[0] == "auditwheel":  # the one installed beside this interpreter
            argv[:1] = [sys.executable, "-m", "auditwheel"]
        subprocess.run(argv, check=True)
        (repaired,) = Path(out).glob("*.whl")
        target = dest / repaired.name
        shutil.move(repaired, target)
    return target


def main(dist: Path) -> int:
    for wheel in sorted(dist.glob("*.whl")):
        if needs_repair(wheel):
            repaired = repair(wheel, dist)
            if repaired != wheel:
                wheel.unlink()
            print(f"repair_wheel: {wheel.name} -> {repaired.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "dist")))
