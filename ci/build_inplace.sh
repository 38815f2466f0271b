#!/usr/bin/env bash
# Builds the native launcher for a source checkout (PYTHONPATH=src): builds the wheel with
# scikit-build-core + CMake, then copies tilec/_launcher* into src/tilec/ (git ignores it).
set -euo pipefail
cd "$(dirname "$0")/.."
out="build/inplace"
rm -rf "$out"
python -m pip wheel --no-deps -q -w "$out" .
python - "$out" <<'PY'
import sys, zipfile, pathlib
wheel = next(pathlib.Path(sys.argv[1]).glob("tilec-*.whl"))
with zipfile.ZipFile(wheel) as zf:
    names = [n for n in zf.namelist() if n.startswith("tilec/_launcher")]
    if not names:
        sys.exit(f"{wheel.name} has no native launcher (the build fell back to pure Python)")
    for name in names:
        # written beside and renamed over: a process that has the old module loaded keeps
        # its mapping instead of seeing the file change under it
        target = pathlib.Path("src", name)
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(zf.read(name))
        partial.replace(target)
        print(f"built src/{name}")
PY
