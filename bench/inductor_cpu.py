"""torch.compile on the CPU: Inductor's triton backend on tilec against its C++ backend.

Each graph is compiled twice in one process (``cpu_backend="triton"`` after
``tilec.install_as_triton()``, and ``cpu_backend="cpp"``, which needs a C++ compiler), checked
against eager float64, then timed as the median of interleaved repetitions (the two backends
take turns, so drift hits both). Prints a table with the tilec/C++ time ratio per graph and their
geomean, plus compile times, and writes JSON to bench/results/.

    python bench/inductor_cpu.py [--threads N] [--quick] [--graphs softmax,mlp]
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BACKENDS = ("triton", "cpp")


@dataclass(frozen=True)
class Graph:
    name: str
    fn: Callable[..., Any]
    inputs: Callable[[Any, bool], tuple[Any, ...]]  # (torch, quick) -> inputs
    backward: bool = False


def _pointwise(x: Any) -> Any:
    import torch

    return torch.sin(x) * torch.exp(-x * x) + torch.tanh(x) - torch.erf(x) / 3


def _reduction(x: Any) -> Any:
    return x.sum(dim=-1) + x.amax(dim=-1) * 0.5


def _softmax(x: Any) -> Any:
    return x.softmax(dim=-1)


def _layer_norm(x: Any, w: Any, b: Any) -> Any:
    import torch

    return torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, 1e-5)


def _mlp(x: Any, w1: Any, b1: Any, w2: Any) -> Any:
    import torch

    return (torch.nn.functional.gelu(x @ w1 + b1) @ w2).sum()


def _block(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, w1: Any, w2: Any) -> Any:
    """A pre-norm transformer block (one head, causal attention, GELU MLP)."""
    import torch
    import torch.nn.functional as F

    h = F.layer_norm(x, x.shape[-1:])
    q, k, v = h @ wq, h @ wk, h @ wv
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()
    x = x + (scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v) @ wo
    return x + F.gelu(F.layer_norm(x, x.shape[-1:]) @ w1) @ w2


def _sizes(quick: bool, full: int, small: int) -> int:
    return small if quick else full


GRAPHS = (
    Graph("pointwise", _pointwise, lambda t, q: (t.randn(_sizes(q, 1 << 22, 1 << 16)),)),
    Graph("reduction", _reduction, lambda t, q: (t.randn(_sizes(q, 4096, 256), 1024),)),
    Graph("softmax", _softmax, lambda t, q: (t.randn(_sizes(q, 4096, 256), 1024),)),
    Graph("layer_norm", _layer_norm,
          lambda t, q: (t.randn(_sizes(q, 8192, 256), 1024), t.randn(1024), t.randn(1024))),
    Graph("mlp", _mlp, lambda t, q: (t.randn(_sizes(q, 512, 64), 512), t.randn(512, 1024) / 23,
                                     t.randn(1024), t.randn(1024, 512) / 32), backward=True),
    Graph("block", _block, lambda t, q: (t.randn(_sizes(q, 512, 64), 256),
                                         *(t.randn(256, 256) / 16 for _ in range(4)),
                                         t.randn(256, 1024) / 16, t.randn(1024, 256) / 32)),
)  # fmt: skip


def _call(graph: Graph, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    out = fn(*args)
    if graph.backward:
        out.backward()
    return out


def _max_error(graph: Graph, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
    """Largest difference to eager float64, relative to the reference's magnitude."""
    got_args = tuple(a.detach().clone().requires_grad_(graph.backward) for a in args)
    ref_args = tuple(a.detach().double().requires_grad_(graph.backward) for a in args)
    pairs = [(_call(graph, fn, got_args), _call(graph, graph.fn, ref_args))]
    if graph.backward:
        pairs += [(a.grad, r.grad) for a, r in zip(got_args, ref_args)]
    worst = 0.0
    for got, want in pairs:
        scale = max(1.0, float(want.detach().abs().max()))
        worst = max(worst, float((got.detach().double() - want.detach()).abs().max()) / scale)
    return worst


def _compile(torch: Any, graph: Graph, backend: str, args: tuple[Any, ...]) -> tuple[Any, float]:
    import torch._inductor.config as inductor_config

    inductor_config.cpu_backend = backend
    torch._dynamo.reset()
    compiled = torch.compile(graph.fn)
    start = time.perf_counter()
    _call(graph, compiled, tuple(a.detach().requires_grad_(graph.backward) for a in args))
    return compiled, time.perf_counter() - start


def _time(graph: Graph, fns: dict[str, Any], args: tuple[Any, ...], reps: int) -> dict[str, float]:
    """Median seconds per call, the backends interleaved."""
    inputs = tuple(a.detach().requires_grad_(graph.backward) for a in args)
    samples: dict[str, list[float]] = {b: [] for b in fns}
    for _ in range(reps):
        for backend, fn in fns.items():
            start = time.perf_counter()
            _call(graph, fn, inputs)
            samples[backend].append(time.perf_counter() - start)
    return {b: statistics.median(s) for b, s in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument("--quick", action="store_true", help="small inputs, few repetitions")
    parser.add_argument("--graphs", default="", help="comma-separated subset")
    opts = parser.parse_args()

    import tilec

    tilec.install_as_triton()
    import torch

    torch.set_num_threads(opts.threads)  # tilec's grid threads follow it (compat/launcher.py)
    torch.manual_seed(0)
    chosen = [g for g in GRAPHS if not opts.graphs or g.name in opts.graphs.split(",")]
    reps = 5 if opts.quick else 21
    rows = []
    print(f"{'graph':<12} {'tilec ms':>10} {'C++ ms':>10} {'ratio':>7} "
          f"{'compile tilec s':>16} {'compile C++ s':>14} {'max error':>10}")  # fmt: skip
    for graph in chosen:
        args = graph.inputs(torch, opts.quick)
        compiled, compile_s, errors = {}, {}, {}
        for backend in BACKENDS:
            compiled[backend], compile_s[backend] = _compile(torch, graph, backend, args)
            errors[backend] = _max_error(graph, compiled[backend], args)
        if errors["triton"] > 1e-4:
            raise SystemExit(f"{graph.name}: tilec's result is off by {errors['triton']:.3g}")
        times = _time(graph, compiled, args, reps)
        ratio = times["triton"] / times["cpp"]
        rows.append({"graph": graph.name, "tilec_s": times["triton"], "cpp_s": times["cpp"],
                     "ratio": ratio, "compile_tilec_s": compile_s["triton"],
                     "compile_cpp_s": compile_s["cpp"], "max_error": errors["triton"]})  # fmt: skip
        print(f"{graph.name:<12} {times['triton'] * 1e3:>10.3f} {times['cpp'] * 1e3:>10.3f} "
              f"{ratio:>7.2f} {compile_s['triton']:>16.2f} {compile_s['cpp']:>14.2f} "
              f"{errors['triton']:>10.1e}")  # fmt: skip
    geomean = math.exp(statistics.fmean(math.log(r["ratio"]) for r in rows))
    print(f"geomean tilec/C++ time: {geomean:.2f} (threads={opts.threads})")
    out = Path(__file__).with_name("results") / f"inductor_cpu{'_quick' if opts.quick else ''}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({
        "machine": platform.platform(), "cpu_count": os.cpu_count(), "threads": opts.threads,
        "torch": torch.__version__, "tilec": tilec.__version__, "quick": opts.quick,
        "geomean_ratio": geomean, "graphs": rows,
    }, indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
