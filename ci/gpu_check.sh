#!/usr/bin/env bash
# Everything that needs an NVIDIA GPU, in one run: the doctor's verdict, the tests marked gpu,
# the CUDA-vs-CPU differential fuzzer and the GPU benchmarks. Each step's output goes to
# $OUT (default ./gpu-check), and a table of the steps' exit codes and times is printed last.
# Expects tilec's native launcher built in place (ci/build_inplace.sh) or buildable here.
#
#   OUT=/tmp/x FUZZ_COUNT=10000 STEPS="doctor tests fuzz bench" bash ci/gpu_check.sh
#
# Steps beyond the default ones: fuzzcpu, launch, mmav2 (bench/gpu.py with tensor-core dots on
# mma.sync, DISABLE_MMA_V3=1), inductor (torch.compile graphs, bench/inductor_gpu.py --quick),
# doctutorials (the docs' tutorials with their tables, -rP), tutorials (Triton's own tutorials
# beside the installed Triton, from the checkout TRITON names: TUTORIALS="02 05").
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-gpu-check}"
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" TILEC_CACHE_DIR="${TILEC_CACHE_DIR:-/tmp/tilec-cache}"
py="${PYTHON:-python3}"
jobs="${JOBS:-$(nproc)}"
steps="${STEPS:-doctor tests fuzz bench}"
summary=()

step() {  # step NAME TIMEOUT COMMAND...: run, keep its output, remember its status and time
  local name="$1" limit="$2"
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" >"$out/$name.txt" 2>&1
  local status=$?
  summary+=("$(printf '%-10s exit %-3s %5ss  %s' "$name" "$status" "$((SECONDS - start))" \
    "$(grep -E 'passed|failed|mismatch|error' "$out/$name.txt" | tail -1 | cut -c1-90)")")
}

if ! "$py" -c "import tilec._launcher" 2>/dev/null; then
  step build 600 "$py" -m pip wheel --no-deps --no-build-isolation -q -w build/inplace .
  "$py" - <<'PY'
import pathlib, zipfile
wheel = next(pathlib.Path("build/inplace").glob("tilec-*.whl"))
with zipfile.ZipFile(wheel) as zf:
    for name in zf.namelist():
        if name.startswith("tilec/_launcher"):
            pathlib.Path("src", name).write_bytes(zf.read(name))
PY
fi

for s in $steps; do
  case "$s" in
    doctor) step doctor 120 "$py" -m tilec doctor --json ;;
    tests)
      step tests "${TESTS_TIMEOUT:-900}" "$py" -m pytest -q -m gpu -p no:cacheprovider \
        -n "$jobs" --timeout 600 -ra ${TESTS:-tests} ;;
    fuzz)
      step fuzz "${FUZZ_TIMEOUT:-900}" "$py" -m tests.fuzz.run --backend cuda-vs-cpu \
        --count "${FUZZ_COUNT:-10000}" --seed "${FUZZ_SEED:-12}" --jobs "$jobs" \
        --json "$out/fuzz.json" ;;
    fuzzcpu)
      step fuzzcpu "${FUZZ_TIMEOUT:-900}" "$py" -m tests.fuzz.run --backend cpu \
        --count "${FUZZ_CPU_COUNT:-20000}" --seed "${FUZZ_SEED:-12}" --jobs "$jobs" \
        --json "$out/fuzz-cpu.json" ;;
    bench) step bench "${BENCH_TIMEOUT:-900}" "$py" bench/gpu.py --out "$out" ;;
    launch) step launch 300 "$py" bench/launch.py --device cuda ;;
    mmav2)
      mkdir -p "$out/mmav2"
      step mmav2 "${BENCH_TIMEOUT:-900}" env DISABLE_MMA_V3=1 "$py" bench/gpu.py --out "$out/mmav2" ;;
    inductor)
      step inductor "${INDUCTOR_TIMEOUT:-600}" "$py" bench/inductor_gpu.py --quick --out "$out" ;;
    doctutorials)
      step doctutorials 600 "$py" -m pytest -q -m gpu -rP -p no:cacheprovider tests/docs/test_tutorials.py ;;
    tutorials)
      step tutorials "${TUTORIALS_TIMEOUT:-900}" "$py" bench/tutorials.py "${TRITON:?TRITON names a Triton checkout}" \
        ${TUTORIALS:-02 05} --out "$out" ;;
    *) echo "unknown step $s" >&2 ;;
  esac
done

printf '%s\n' "${summary[@]}"
