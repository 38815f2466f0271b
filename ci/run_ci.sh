#!/usr/bin/env bash
# The project's CI run (called by .ci/run): a fresh virtual environment, torch's CPU build for
# the torch-argument tests, scikit-build-core for the sdist content checks, then the README's
# test command verbatim and the slow tests it leaves out. Any failure fails the run, including
# pytest's exit code 5 (no tests).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TILEC_CI_VENV:-$(mktemp -d)/venv}"
python3 -m venv "$venv"
# shellcheck disable=SC1091
source "$venv/bin/activate"
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0" "scikit-build-core>=0.11"
# a CUDA 12 ptxas beside the machine's CUDA 13 one: the doctor-vs-compiler sweep runs over both
# toolkit majors (tests/platform/test_doctor_matches_compile.py); kept out of site-packages so
# the rest of the suite assembles with the ptxas the search finds
if [ "$(uname -sm)" = "Linux x86_64" ]; then
  tools="$(dirname "$venv")/cuda12"
  python -m pip install -q --no-deps --target "$tools" "nvidia-cuda-nvcc-cu12==12.9.86"
  chmod +x "$tools/nvidia/cuda_nvcc/bin/ptxas"
  export TILEC_TEST_EXTRA_PTXAS="$tools/nvidia/cuda_nvcc/bin/ptxas"
fi
# mingw-w64 and wine, so tests/packaging/test_c_core.py also runs the Windows build of the
# launcher's C core (best effort: without them that test is skipped, naming what is missing)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && ! command -v wine >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends gcc-mingw-w64-x86-64 wine wine64 >/dev/null) ||
    echo "ci: could not install mingw-w64 and wine; the Windows C core test will be skipped" >&2
fi
# The README's test command, verbatim: it leaves out the tests marked slow (tests/conftest.py,
# tests/slow.txt), which run next whatever it returned, so that CI runs and reports every test.
set +e
pip install ".[test]" && python -m pytest
readme=$?
python -m pytest -m slow
slow=$?
set -e
if [ "$readme" -eq 5 ]; then
  echo "ci: the README's test command collected no tests; failing the run" >&2
fi
if [ "$slow" -eq 5 ]; then
  echo "ci: python -m pytest -m slow collected no tests; failing the run" >&2
fi
if [ "$readme" -ne 0 ]; then exit "$readme"; fi
exit "$slow"
