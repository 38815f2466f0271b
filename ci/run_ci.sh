#!/usr/bin/env bash
# The project's CI run (called by .ci/run): a fresh virtual environment, torch's CPU build for
# the torch-argument tests, scikit-build-core for the sdist content checks, then the README's
# test command verbatim. Any failure fails the run, including pytest's exit code 5 (no tests).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TILEC_CI_VENV:-$(mktemp -d)/venv}"
python3 -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0" "scikit-build-core>=0.11"
# The README's test command, verbatim:
set +e
pip install ".[test]" && python -m pytest
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "ci: pytest collected no tests; failing the run" >&2
fi
exit "$status"
