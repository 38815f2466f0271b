"""torch.compile on the CPU: Inductor's triton backend on tilec against its C++ backend.

The graphs are the ones tests/compat_inductor/graphs.py checks, at the sizes in
bench/inductor_graphs.py's ``SIZES`` (bench/inductor_gpu.py times them on CUDA). Each
is compiled twice in one process (``cpu_backend="triton"`` after ``tilec.install_as_triton()``,
and ``cpu_backend="cpp"``, which needs a C++ compiler), checked against eager float64, then
timed with the two backends taking turns call by call. Prints per graph the ratio of the median
times, the quartiles of the ratio of each interleaved pair (the spread: drift on a shared
machine hits both halves of a pair), their geomean and compile times; writes JSON to
bench/results/.

    python bench/inductor_cpu.py [--threads N] [--quick] [--reps N] [--clock cpu] [--graphs a,b]
                                 [--kernels]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inductor_graphs import SIZES, call, graphs, max_error, triton_launches

BACKENDS = ("triton", "cpp")


def _compile(torch: Any, graph: Any, backend: str, args: tuple[Any, ...]) -> tuple[Any, float]:
    """The graph compiled for ``backend`` and the seconds its first call took.

    The backend is an option of this compilation, not the global Inductor config: Dynamo keeps
    one cache entry per backend on the function's code, and a later call of the other
    compilation would otherwise run whichever code the config names at that moment."""
    compiled = torch.compile(
        graph.fn, dynamic=graph.dynamic or None, options={"cpu_backend": backend}
    )
    start = time.perf_counter()
    call(graph, compiled, tuple(a.detach().requires_grad_(graph.backward) for a in args))
    return compiled, time.perf_counter() - start


def _kernel_times(
    graph: Any, fn: Callable[..., Any], args: tuple[Any, ...], reps: int, clock: Callable[[], float]
) -> dict[str, float]:
    """Seconds per graph call spent in each Triton kernel (tilec's here), by kernel name: where
    the time of the triton column goes (launch overhead included)."""
    from torch._inductor.runtime import triton_heuristics

    autotuner = triton_heuristics.CachingAutotuner
    original = autotuner.run
    spent: dict[str, float] = {}

    def timed(self: Any, *a: Any, **k: Any) -> Any:
        start = clock()
        try:
            return original(self, *a, **k)
        finally:
            name = self.inductor_meta.get("kernel_name") or self.fn.__name__
            spent[name] = spent.get(name, 0.0) + clock() - start

    inputs = tuple(a.detach().requires_grad_(graph.backward) for a in args)
    autotuner.run = timed  # type: ignore[method-assign]
    try:
        for _ in range(reps):
            call(graph, fn, inputs)
    finally:
        autotuner.run = original  # type: ignore[method-assign]
    return {name: t / reps for name, t in sorted(spent.items(), key=lambda kv: -kv[1])}


def _time(
    graph: Any, fns: dict[str, Any], args: tuple[Any, ...], reps: int, clock: Callable[[], float]
) -> dict[str, Any]:
    """Seconds per call of each backend, the backends interleaved, and the tilec/C++ ratio of
    each interleaved pair (drift on a shared machine hits both halves of a pair alike)."""
    inputs = tuple(a.detach().requires_grad_(graph.backward) for a in args)
    samples: dict[str, list[float]] = {b: [] for b in fns}
    for _ in range(reps):
        for backend, fn in fns.items():
            start = clock()
            call(graph, fn, inputs)
            samples[backend].append(clock() - start)
    return {**samples, "pairs": [t / c for t, c in zip(samples["triton"], samples["cpp"])]}


def _quartiles(values: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument("--quick", action="store_true", help="small inputs, few repetitions")
    parser.add_argument("--reps", type=int, default=0, help="timed calls per backend")
    parser.add_argument("--graphs", default="", help="comma-separated subset")
    parser.add_argument(
        "--kernels",
        action="store_true",
        help="also print each tilec kernel's time per call (after the timing)",
    )
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="cpu: the process's CPU time, steadier on a machine other work "
                             "shares (meaningful with --threads 1 only)")  # fmt: skip
    opts = parser.parse_args()

    import tilec

    tilec.install_as_triton()
    import torch

    torch.set_num_threads(opts.threads)  # tilec's grid threads follow it (compat launcher)
    torch.manual_seed(0)
    graph_table = graphs().GRAPHS
    chosen = [n for n in SIZES if not opts.graphs or n in opts.graphs.split(",")]
    reps = opts.reps or (101 if opts.quick else 21)
    rows = []
    print(f"{'graph':<12} {'tilec ms':>10} {'C++ ms':>10} {'ratio':>7} {'pairs p25-p75':>14} "
          f"{'compile tilec s':>16} {'compile C++ s':>14} {'max error':>10}")  # fmt: skip
    for name in chosen:
        graph = graph_table[name]
        args = SIZES[name][1 if opts.quick else 0](torch)
        compiled, compile_s, errors = {}, {}, {}
        torch._dynamo.reset()
        for backend in BACKENDS:
            compiled[backend], compile_s[backend] = _compile(torch, graph, backend, args)
            errors[backend] = max_error(graph, compiled[backend], args)
        launches = {b: triton_launches(graph, compiled[b], args) for b in BACKENDS}
        if not launches["triton"] or launches["cpp"]:
            raise SystemExit(f"{name}: Triton kernel launches per call {launches}: the timed "
                             "code is not the backend it is labelled with")  # fmt: skip
        if errors["triton"] > 1e-4:
            raise SystemExit(f"{name}: tilec's result is off by {errors['triton']:.3g}")
        clock = time.process_time if opts.clock == "cpu" else time.perf_counter
        samples = _time(graph, compiled, args, reps, clock)
        tilec_s, cpp_s = statistics.median(samples["triton"]), statistics.median(samples["cpp"])
        low, high = _quartiles(samples["pairs"])
        rows.append({"graph": name, "tilec_s": tilec_s, "cpp_s": cpp_s, "ratio": tilec_s / cpp_s,
                     "pair_ratio_p25": low, "pair_ratio_p75": high, "reps": reps,
                     "compile_tilec_s": compile_s["triton"], "compile_cpp_s": compile_s["cpp"],
                     "max_error": errors["triton"]})  # fmt: skip
        print(f"{name:<12} {tilec_s * 1e3:>10.3f} {cpp_s * 1e3:>10.3f} {tilec_s / cpp_s:>7.2f} "
              f"{f'{low:.2f}-{high:.2f}':>14} {compile_s['triton']:>16.2f} "
              f"{compile_s['cpp']:>14.2f} {errors['triton']:>10.1e}", flush=True)  # fmt: skip
        if opts.kernels:
            kernels = _kernel_times(graph, compiled["triton"], args, reps, clock)
            rows[-1]["kernels_s"] = kernels
            for kernel, seconds in kernels.items():
                print(f"    {seconds * 1e3:>9.3f} ms  {kernel}")
    geomean = math.exp(statistics.fmean(math.log(r["ratio"]) for r in rows))
    print(
        f"geomean tilec/C++ time: {geomean:.2f} (threads={opts.threads}, {opts.clock} clock, "
        f"{reps} interleaved calls per backend; ratio = median/median, pairs = each "
        "interleaved pair's ratio)"
    )
    out = Path(__file__).with_name("results") / f"inductor_cpu{'_quick' if opts.quick else ''}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "machine": platform.platform(), "cpu_count": os.cpu_count(), "threads": opts.threads,
        "clock": opts.clock, "torch": torch.__version__, "tilec": tilec.__version__,
        "quick": opts.quick, "geomean_ratio": geomean, "graphs": rows,
    }, indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
