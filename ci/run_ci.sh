#!/usr/bin/env bash
# Fresh virtual environment, the project with its test extra, torch's CPU build for the
# torch-argument tests, then the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TILEC_CI_VENV:-$(mktemp -d)/venv}"
python3 -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0"
# The README's test command, verbatim:
pip install ".[test]" && python -m pytest
