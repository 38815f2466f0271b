"""What bounds-checked mode (``debug=True``) costs on the CPU: vector add and fused softmax,
checked vs unchecked, same process, alternating runs; plus a gather (``x[perm] + y``), whose
addresses follow no stride, so every lane of it is checked on its own (the slow case).

Each kernel is first checked against a float64 reference in both modes, then timed as the
median of interleaved repetitions (checked and unchecked take turns, so drift hits both).
Prints a table with the checked/unchecked ratio and writes JSON to bench/results/.

    PYTHONPATH=src python bench/bounds_check.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)  # fmt: skip


@tilec.jit
def gather_add_kernel(x_ptr, perm_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + tl.load(perm_ptr + offs, mask=mask, other=0), mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)


@tilec.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * stride + offs, num / tl.sum(num, axis=0), mask=mask)


def _vector_add(n: int, gather: bool = False) -> tuple[Callable[[bool], np.ndarray], np.ndarray]:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    perm = rng.permutation(n).astype(np.int32)
    out = np.full(n, np.nan, np.float32)
    block = 1024
    grid = ((n + block - 1) // block,)

    def run(debug: bool) -> np.ndarray:
        if gather:
            gather_add_kernel[grid](x, perm, y, out, n, BLOCK=block, debug=debug)
        else:
            add_kernel[grid](x, y, out, n, BLOCK=block, debug=debug)
        return out

    return run, (x[perm] if gather else x).astype(np.float64) + y


def _softmax(rows: int, cols: int) -> tuple[Callable[[bool], np.ndarray], np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.full_like(a, np.nan)
    block = tilec.next_power_of_2(cols)

    def run(debug: bool) -> np.ndarray:
        softmax_kernel[(rows,)](out, a, cols, cols, BLOCK=block, debug=debug)
        return out

    e = np.exp(a - a.max(axis=1, keepdims=True).astype(np.float64))
    return run, e / e.sum(axis=1, keepdims=True)


def _median_ms(run: Callable[[bool], np.ndarray], debug: bool, reps: int) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        run(debug)
    return (time.perf_counter() - start) * 1e3 / reps


def measure(name: str, run: Callable[[bool], np.ndarray], ref: np.ndarray, rounds: int) -> dict:
    for debug in (False, True):  # compile, and check both against the reference
        np.testing.assert_allclose(run(debug), ref, rtol=1e-5, atol=1e-6)
    reps = max(1, int(0.05 / max(_median_ms(run, False, 1) / 1e3, 1e-6)))
    times: dict[bool, list[float]] = {False: [], True: []}
    for i in range(rounds):
        for debug in (False, True) if i % 2 == 0 else (True, False):
            times[debug].append(_median_ms(run, debug, reps))
    plain, checked = statistics.median(times[False]), statistics.median(times[True])
    return {"kernel": name, "unchecked_ms": plain, "checked_ms": checked, "ratio": checked / plain}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller problems, fewer rounds")
    args = parser.parse_args()
    rounds = 5 if args.quick else 15
    n = 1 << (20 if args.quick else 24)
    rows, cols = (1024, 1000) if args.quick else (4096, 1000)
    results = [
        measure(f"vector_add n={n}", *_vector_add(n), rounds),
        measure(f"softmax {rows}x{cols}", *_softmax(rows, cols), rounds),
        measure(f"gather_add n={n}", *_vector_add(n, gather=True), rounds),
    ]
    print(f"{'kernel':<26}{'unchecked ms':>14}{'checked ms':>12}{'ratio':>8}")
    for r in results:
        print(f"{r['kernel']:<26}{r['unchecked_ms']:>14.3f}{r['checked_ms']:>12.3f}"
              f"{r['ratio']:>8.2f}")  # fmt: skip
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    record = {
        "benchmark": "bounds_check",
        "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()},
        "tilec": tilec.__version__,
        "results": results,
    }
    path = out / f"bounds-check-cpu-{stamp}.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
