"""The torch.compile graphs the Inductor benchmarks time, their inputs, and how one is checked.

The graphs are tests/compat_inductor/graphs.py's (what the tests check is what is timed), loaded
from that file. ``SIZES`` holds their inputs for the CPU (bench/inductor_cpu.py), as (default,
--quick), and ``GPU_SIZES`` for CUDA (bench/inductor_gpu.py). ``max_error`` is the
largest difference to eager float64, relative to the reference's magnitude; ``triton_launches``
counts the Triton kernels one call runs (proof the timed code is what its column names).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

GRAPHS_PY = Path(__file__).resolve().parents[1] / "tests" / "compat_inductor" / "graphs.py"

Inputs = Callable[[Any], tuple[Any, ...]]  # torch -> the graph's arguments

# graph -> its inputs at the default size and with --quick, on the CPU
SIZES: dict[str, tuple[Inputs, Inputs]] = {
    "pointwise": (lambda t: (t.randn(1 << 22),), lambda t: (t.randn(1 << 16),)),
    "reduction": (lambda t: (t.randn(4096, 1024),), lambda t: (t.randn(256, 1024),)),
    "softmax": (lambda t: (t.randn(4096, 1024),), lambda t: (t.randn(256, 1024),)),
    "layer_norm": (lambda t: (t.randn(8192, 1024), t.randn(1024), t.randn(1024)),
                   lambda t: (t.randn(256, 1024), t.randn(1024), t.randn(1024))),
    "mlp": (lambda t: (t.randn(512, 512), t.randn(512, 1024) / 23, t.randn(1024),
                       t.randn(1024, 512) / 32),
            lambda t: (t.randn(64, 512), t.randn(512, 1024) / 23, t.randn(1024),
                       t.randn(1024, 512) / 32)),
    "block": (lambda t: graphs().block_inputs(t, 512, 256),
              lambda t: graphs().block_inputs(t, 64, 256)),
    "dynamic": (lambda t: (t.randn(4096, 1024),), lambda t: (t.randn(256, 1024),)),
}  # fmt: skip


def _mlp_inputs(torch: Any, rows: int, width: int, hidden: int) -> tuple[Any, ...]:
    return (torch.randn(rows, width), torch.randn(width, hidden) / width**0.5,
            torch.randn(hidden), torch.randn(hidden, width) / hidden**0.5)  # fmt: skip


# the same graphs on CUDA, one size (with --quick too: compiling, not running, takes the time),
# at which an H200 spends tens of microseconds or more per call, so the kernels, not the host's
# launches, set the time
GPU_SIZES: dict[str, Inputs] = {
    "pointwise": lambda t: (t.randn(1 << 26),),
    "reduction": lambda t: (t.randn(32768, 1024),),
    "softmax": lambda t: (t.randn(32768, 1024),),
    "layer_norm": lambda t: (t.randn(32768, 1024), t.randn(1024), t.randn(1024)),
    "mlp": lambda t: _mlp_inputs(t, 4096, 1024, 4096),
    "block": lambda t: graphs().block_inputs(t, 2048, 512),
    "dynamic": lambda t: (t.randn(32768, 1024),),
}


def graphs() -> Any:
    """The test suite's graph module, loaded once from its file."""
    name = "compat_inductor_graphs"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GRAPHS_PY)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    return sys.modules[name]


def call(graph: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """One call of ``fn``, with the backward pass when the graph has one."""
    out = fn(*args)
    if graph.backward:
        out.backward()
    return out


def max_error(graph: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> float:
    """Largest difference of ``fn`` (and of the inputs' gradients) to eager float64, relative
    to the reference's magnitude (at least 1); inf where a result is missing or not finite."""
    got_args = tuple(a.detach().clone().requires_grad_(graph.backward) for a in args)
    ref_args = tuple(a.detach().double().requires_grad_(graph.backward) for a in args)
    pairs = [(call(graph, fn, got_args), call(graph, graph.fn, ref_args))]
    if graph.backward:
        pairs += [(a.grad, r.grad) for a, r in zip(got_args, ref_args)]
    worst = 0.0
    for got, want in pairs:
        if got is None or not bool(got.detach().isfinite().all()):
            return float("inf")
        scale = max(1.0, float(want.detach().abs().max()))
        worst = max(worst, float((got.detach().double() - want.detach()).abs().max()) / scale)
    return worst


def triton_launches(graph: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> int:
    """How many Triton kernels one call of ``fn`` launches (Inductor's CachingAutotuner)."""
    from torch._inductor.runtime import triton_heuristics

    autotuner = triton_heuristics.CachingAutotuner
    original, count = autotuner.run, [0]

    def counted(self: Any, *a: Any, **k: Any) -> Any:
        count[0] += 1
        return original(self, *a, **k)

    autotuner.run = counted  # type: ignore[method-assign]
    try:
        call(graph, fn, tuple(a.detach().requires_grad_(graph.backward) for a in args))
    finally:
        autotuner.run = original  # type: ignore[method-assign]
    return count[0]
