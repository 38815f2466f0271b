"""cibuildwheel's test command, the same on Linux, Windows and macOS (run from the copied
test sources with the built wheel installed): the native launcher is in the wheel and loads,
``tilec doctor --json`` reports, and the CPU test suite passes against the installed package.
"""

from __future__ import annotations

import json
import subprocess
import sys


def main() -> int:
    from tilec.runtime import launcher

    state = launcher.status()
    print(f"launcher: native={state.native} ({state.reason})")
    if not state.native:
        return 1
    doctor = subprocess.run(
        [sys.executable, "-m", "tilec", "doctor", "--json"], capture_output=True, text=True
    )
    print(doctor.stdout[-2000:], doctor.stderr[-2000:], sep="\n")
    json.loads(doctor.stdout)  # the report must be valid JSON whatever the verdict
    if doctor.returncode != 0:
        return doctor.returncode
    tests = [sys.executable, "-m", "pytest", "-q", "-m", "not gpu and not slow", "tests"]
    return subprocess.call(tests)


if __name__ == "__main__":
    sys.exit(main())
