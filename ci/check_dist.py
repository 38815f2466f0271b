"""Check what `python -m build` left in a dist folder before it is published: one sdist with
the launcher's sources and no junk, one abi3 platform wheel with the launcher and py.typed,
tagged for a package index (manylinux/musllinux on Linux, not the plain linux tag).

    python ci/check_dist.py DIST_DIR
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from pathlib import Path

SDIST_NEEDS = ("pyproject.toml", "platform/CMakeLists.txt", "platform/launcher/module.c")
JUNK_PARTS = {"build", "dist", ".nox", ".venv", "site", "__pycache__", "wheelhouse"}
JUNK_SUFFIXES = (".pyc", ".so", ".pyd", ".dylib", ".whl", ".o")


def check_sdist(path: Path) -> list[str]:
    with tarfile.open(path) as tar:
        names = [m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile()]
    problems = [f"sdist lacks {n}" for n in SDIST_NEEDS if n not in names]
    problems += [
        f"sdist holds junk: {n}"
        for n in names
        if JUNK_PARTS & set(n.split("/")[:-1]) or n.endswith(JUNK_SUFFIXES)
    ]
    return problems


def check_wheel(path: Path) -> list[str]:
    names = zipfile.ZipFile(path).namelist()
    problems = [] if "-abi3-" in path.name else [f"{path.name} is not an abi3 wheel"]
    if re.search(r"-linux_[A-Za-z0-9_]+\.whl$", path.name):
        problems.append(
            f"{path.name} has the plain linux tag, which no package index accepts "
            "(ci/repair_wheel.py gives it its manylinux tag)"
        )
    if not any(n.startswith("tilec/_launcher") for n in names):
        problems.append(f"{path.name} has no tilec/_launcher*")
    if "tilec/py.typed" not in names:
        problems.append(f"{path.name} has no tilec/py.typed")
    return problems


def main(dist: Path) -> int:
    sdists, wheels = sorted(dist.glob("tilec-*.tar.gz")), sorted(dist.glob("tilec-*.whl"))
    problems = [] if len(sdists) == 1 else [f"expected one sdist, found {len(sdists)}"]
    problems += [] if len(wheels) == 1 else [f"expected one wheel, found {len(wheels)}"]
    for path in sdists:
        problems += check_sdist(path)
    for path in wheels:
        problems += check_wheel(path)
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_dist: {', '.join(p.name for p in sdists + wheels)} look right")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "dist")))
