"""Risky scenarios, each run in a child process by test_process_survives.py: an abort or a
segfault in one of them ends the child, so the test sees a wait status instead of pytest dying.

``python scenarios.py NAME [ARGS...]`` runs one (from scenarios_compile.py or
scenarios_launch.py); it exits 0 when the scenario survived and gave correct results, 1 with a
message on stderr when it survived with a wrong result.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the tests folder: conformance kernels, robustness.*


def main(name: str, *args: str) -> None:
    import scenarios_compile
    import scenarios_launch

    for module in (scenarios_compile, scenarios_launch):
        scenario = getattr(module, name, None)
        if scenario is not None and not name.startswith("_"):
            scenario(*args)
            return
    raise SystemExit(f"no scenario {name!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
