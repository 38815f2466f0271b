"""One side of bench/inductor_gpu.py: a child process that compiles, checks and times graphs.

The parent starts it as ``inductor_side.py triton|tilec --device D [--quick] [--rep-ms MS]
[--threads N]`` with private Inductor, Triton and tilec cache directories in its environment.
The ``tilec`` side calls ``tilec.install_as_triton()`` before it imports torch
(``replace_installed`` where a Triton is installed), so every kernel Inductor writes is compiled
by tilec; the ``triton`` side imports torch as it is. Before it says it is ready, the child
compiles one small graph, so the graphs' compile times leave out the one-time imports and
set-up of Inductor and the kernel compiler. It prints one ``@inductor_side {json}`` line when it
is ready, then reads graph names from stdin, one a line, and answers each with one such line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inductor_graphs import GPU_SIZES, SIZES, call, graphs, max_error, triton_launches

MARK = "@inductor_side "
# A side matches when its largest error against eager float64 (outputs and input gradients,
# relative to max(1, |reference|)) is at most max(TOLERANCE, EAGER_FACTOR x the error of eager
# torch in float32 on the same inputs): Inductor may round differently from eager, by a little.
TOLERANCE = 1e-4
EAGER_FACTOR = 8.0
FLUSH_BYTES = 256 << 20  # written before each timed call, as triton.testing.do_bench does
MIN_REPS, MAX_REPS = 10, 1000


def emit(obj: dict[str, Any]) -> None:
    print(MARK + json.dumps(obj), flush=True)


def describe(exc: BaseException) -> str:
    """The exception and the last frames of its traceback, short enough for a JSON line."""
    text = "".join(traceback.format_exception(exc)[-6:])
    return f"{type(exc).__name__}: {exc}"[:1500] + "\n" + text[-2500:]


def _import_side(side: str, device: str) -> tuple[Any, dict[str, Any]]:
    """torch, with tilec as triton on the tilec side, and what this process runs on."""
    if side == "tilec":
        import tilec
        from tilec.compat.install import installed_triton

        tilec.install_as_triton(replace_installed=installed_triton() is not None)
    import torch
    import torch._inductor.config as inductor_config

    # Compile in this process: without tilec's start-up hook in site-packages, compile workers
    # would import the installed Triton. The triton side does the same, so compile times compare.
    inductor_config.compile_threads = 1
    if device == "cpu":
        inductor_config.cpu_backend = "triton"
    import triton

    info: dict[str, Any] = {
        "side": side, "python": platform.python_version(), "torch": torch.__version__,
        "triton": triton.__version__, "triton_file": triton.__file__,
        "triton_is_tilec": getattr(triton, "__tilec_as_triton__", False) is True,
        "device_name": torch.cuda.get_device_name() if device == "cuda" else platform.machine(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
    }  # fmt: skip
    if side == "tilec":
        import tilec
        from tilec.backends import launcher

        info["tilec"] = tilec.__version__
        info["tilec_launcher"] = launcher.status().reason
    return torch, info


def _warm_up(torch: Any, device: str) -> dict[str, Any]:
    """Compile and run ``x * 2 + 1``: Inductor's and the kernel compiler's one-time costs."""
    begin = time.perf_counter()
    try:
        x = torch.arange(1000, dtype=torch.float32, device=device)
        got = torch.compile(lambda t: t * 2 + 1)(x)
        if not bool((got == x * 2 + 1).all()):
            return {"warmup_error": "x * 2 + 1 compiled to a wrong result"}
    except Exception as exc:  # the graphs will say more; this side still runs them
        return {"warmup_error": describe(exc)}
    finally:
        torch._dynamo.reset()
    return {"warmup_s": time.perf_counter() - begin}


def _time_cuda(torch: Any, run: Callable[[], None], rep_ms: float) -> tuple[list[float], float]:
    """Per-call ms by CUDA events around each call, the L2 cache flushed before each (the
    kernels' time), and the mean ms of back-to-back calls (the host's launches included)."""
    flush = torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    first, last = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    first.record()
    for _ in range(5):
        flush.zero_()
        run()
    last.record()
    torch.cuda.synchronize()
    estimate = first.elapsed_time(last) / 5
    reps = max(MIN_REPS, min(MAX_REPS, int(rep_ms / max(estimate, 1e-3))))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]  # fmt: skip
    for start, end in events:
        flush.zero_()
        start.record()
        run()
        end.record()
    torch.cuda.synchronize()
    samples = [start.elapsed_time(end) for start, end in events]
    begin = time.perf_counter()
    for _ in range(reps):
        run()
    torch.cuda.synchronize()
    return samples, (time.perf_counter() - begin) / reps * 1e3


def _time_cpu(run: Callable[[], None], rep_ms: float) -> tuple[list[float], float]:
    """Per-call ms by the wall clock, and their mean (there is no queue to hide launches)."""
    run()
    begin = time.perf_counter()
    run()
    estimate = (time.perf_counter() - begin) * 1e3
    reps = max(MIN_REPS, min(MAX_REPS, int(rep_ms / max(estimate, 1e-3))))
    samples = []
    for _ in range(reps):
        begin = time.perf_counter()
        run()
        samples.append((time.perf_counter() - begin) * 1e3)
    return samples, statistics.fmean(samples)


def _inputs(torch: Any, graph: Any, device: str, quick: bool) -> tuple[Any, ...]:
    torch.manual_seed(0)  # both sides see the same inputs
    with torch.device(device):
        if device == "cuda":
            return GPU_SIZES[graph.name](torch)
        return SIZES[graph.name][quick](torch) if graph.name in SIZES else graph.inputs(torch)


def _check(torch: Any, graph: Any, compiled: Any, args: tuple[Any, ...], device: str) -> dict:
    """The compiled graph's error against eager float64, eager float32's, and the verdict;
    a dynamic-shape graph is checked at a second shape too (the test suite's input)."""
    sets = [args]
    if graph.dynamic:
        with torch.device(device):
            sets.append(graph.inputs(torch))
    error = max(max_error(graph, compiled, a) for a in sets)
    eager = max(max_error(graph, graph.fn, a) for a in sets)
    tolerance = max(TOLERANCE, EAGER_FACTOR * eager)
    return {"max_error": error, "eager_error": eager, "tolerance": tolerance,
            "match": error <= tolerance}  # fmt: skip


def run_graph(torch: Any, name: str, device: str, quick: bool, rep_ms: float) -> dict[str, Any]:
    graph = graphs().GRAPHS[name]
    args = _inputs(torch, graph, device, quick)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    torch._dynamo.reset()
    compiled = torch.compile(graph.fn, dynamic=graph.dynamic or None)
    inputs = tuple(a.detach().requires_grad_(graph.backward) for a in args)
    sync()
    begin = time.perf_counter()
    call(graph, compiled, inputs)  # Dynamo, Inductor, kernel compiles and autotuning
    sync()
    row: dict[str, Any] = {"graph": name, "compile_s": time.perf_counter() - begin,
                           "shapes": [list(a.shape) for a in args]}  # fmt: skip
    row.update(_check(torch, graph, compiled, args, device))
    row["launches"] = triton_launches(graph, compiled, args)

    def run() -> None:
        if graph.backward:
            for a in inputs:
                a.grad = None
        call(graph, compiled, inputs)

    samples, wall = (_time_cuda(torch, run, rep_ms) if device == "cuda"
                     else _time_cpu(run, rep_ms))  # fmt: skip
    quantiles = statistics.quantiles(samples, n=10)
    row.update(ms=statistics.median(samples), ms_p20=quantiles[1], ms_p80=quantiles[7],
               wall_ms=wall, reps=len(samples))  # fmt: skip
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("side", choices=("triton", "tilec"))
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rep-ms", type=float, default=100.0)
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads (cpu)")
    opts = parser.parse_args()
    try:
        torch, info = _import_side(opts.side, opts.device)
    except Exception as exc:  # the parent reports it for every graph of this side
        emit({"ready": False, "error": describe(exc)})
        return 1
    if opts.device == "cpu":  # tilec's grid threads follow torch's
        torch.set_num_threads(opts.threads)
        info["threads"] = opts.threads
    info.update(_warm_up(torch, opts.device))
    emit({"ready": True, **info})
    for line in sys.stdin:
        name = line.strip()
        if not name:
            break
        try:
            row = run_graph(torch, name, opts.device, opts.quick, opts.rep_ms)
            if opts.side == "tilec":  # tilec's kernel cache holds what it compiled so far
                cache = Path(os.environ.get("TILEC_CACHE_DIR", "."))
                row["tilec_cache_entries"] = sum(1 for _ in cache.rglob("*.tck"))
        except Exception as exc:
            row = {"graph": name, "error": describe(exc)}
        emit(row)
        gc.collect()
        if opts.device == "cuda":
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
