"""Small torch graphs compiled by Inductor's CPU-triton path with tilec as ``triton``.

Run as a script (``python graphs.py NAME...``) in a fresh interpreter: it installs tilec as
triton, compiles each named graph, compares it with eager torch in float64 on fresh random
inputs and prints one JSON line per graph. The tests run it in a subprocess so the alias never
reaches the test process; bench/inductor_cpu.py times the same graphs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Graph:
    name: str
    fn: Callable[..., Any]
    inputs: Callable[[Any], tuple[Any, ...]]  # torch -> fresh inputs
    backward: bool = False  # also compare the gradients of the inputs
    dynamic: bool = False  # compile with dynamic shapes and run two sizes


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
    import math

    import torch
    import torch.nn.functional as F

    h = F.layer_norm(x, x.shape[-1:])
    q, k, v = h @ wq, h @ wk, h @ wv
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool, device=x.device).tril()
    x = x + (scores.masked_fill(~mask, float("-inf")).softmax(-1) @ v) @ wo
    return x + F.gelu(F.layer_norm(x, x.shape[-1:]) @ w1) @ w2


def block_inputs(torch: Any, rows: int, width: int) -> tuple[Any, ...]:
    """The block's activations (rows x width) and weights, scaled to keep values near 1."""
    hidden = 4 * width
    square = [torch.randn(width, width) / width**0.5 for _ in range(4)]
    mlp = [torch.randn(width, hidden) / width**0.5, torch.randn(hidden, width) / hidden**0.5]
    return (torch.randn(rows, width), *square, *mlp)


def _dynamic(x: Any) -> Any:
    return (x * x.sigmoid()).sum(dim=0)


GRAPHS = {
    g.name: g
    for g in (
        Graph("pointwise", _pointwise, lambda t: (t.randn(4099),)),
        Graph("reduction", _reduction, lambda t: (t.randn(37, 300),)),
        Graph("softmax", _softmax, lambda t: (t.randn(64, 129),)),
        Graph(
            "layer_norm",
            _layer_norm,
            lambda t: (t.randn(32, 256), t.randn(256), t.randn(256)),
        ),
        Graph(
            "mlp",
            _mlp,
            lambda t: (t.randn(16, 64), t.randn(64, 128) / 8, t.randn(128), t.randn(128, 32) / 8),
            backward=True,
        ),
        Graph("block", _block, lambda t: block_inputs(t, 24, 32)),
        Graph("dynamic", _dynamic, lambda t: (t.randn(33, 70),), dynamic=True),
    )
}


def _poisoned_grads(args: tuple[Any, ...]) -> None:
    for a in args:
        a.grad = None


def _run(graph: Graph, compiled: Callable[..., Any], torch: Any, device: str) -> float:
    """The largest error of the compiled graph against eager float64, relative to scale."""
    sizes = [None, (50, 41)] if graph.dynamic else [None]
    worst = 0.0
    for size in sizes:
        args = graph.inputs(torch) if size is None else (torch.randn(*size),)
        args = tuple(a.to(device) for a in args)
        if graph.backward:
            args = tuple(a.requires_grad_() for a in args)
        got = compiled(*args)
        ref_args = tuple(a.detach().double().requires_grad_(graph.backward) for a in args)
        want = graph.fn(*ref_args)
        outs = [(got, want)]
        if graph.backward:
            got.backward()
            want.backward()
            outs += [(a.grad, r.grad) for a, r in zip(args, ref_args)]
        for g, w in outs:
            if g is None or not torch.isfinite(g).all():
                return float("inf")
            scale = max(1.0, float(w.detach().abs().max()))
            worst = max(worst, float((g.detach().double() - w.detach()).abs().max()) / scale)
    return worst


def main(names: list[str], threads: int = 1, device: str = "cpu") -> int:
    import tilec

    # on a GPU machine torch's Triton is installed: choosing tilec over it is explicit
    tilec.install_as_triton(replace_installed=device != "cpu")
    import torch
    import torch._inductor.config as inductor_config

    inductor_config.cpu_backend = "triton"
    inductor_config.compile_threads = threads
    if threads > 1:  # start the worker pool now: Inductor compiles in-process until it is up
        from torch._inductor.async_compile import AsyncCompile

        AsyncCompile.use_process_pool()
        AsyncCompile.wait_pool_ready()
    torch.manual_seed(0)
    failed = 0
    for name in names:
        graph = GRAPHS[name]
        torch._dynamo.reset()
        compiled = torch.compile(graph.fn, dynamic=graph.dynamic or None)
        try:
            error = _run(graph, compiled, torch, device)
        except Exception as exc:  # reported, and the run fails
            print(json.dumps({"graph": name, "error": f"{type(exc).__name__}: {exc}"[:2000]}))
            failed += 1
            continue
        print(json.dumps({"graph": name, "max_rel_error": error}), flush=True)
        failed += not error < 1e-4
    return 1 if failed else 0


if __name__ == "__main__":
    # --threads N: Inductor's compile-worker pool (child processes that import triton);
    # --device cuda: the graphs on the GPU, tilec chosen over the installed Triton
    argv = sys.argv[1:]
    pool = int(argv[argv.index("--threads") + 1]) if "--threads" in argv else 1
    where = argv[argv.index("--device") + 1] if "--device" in argv else "cpu"
    chosen = [a for a in argv if a in GRAPHS]
    sys.exit(main(chosen or list(GRAPHS), pool, where))
