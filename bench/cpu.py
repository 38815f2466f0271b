"""CPU benchmark: tilec vs torch CPU vs numpy (and Triton's interpreter when installed).

Vector add, fused softmax, layer norm and fp32 matmul, each checked against a float64 reference
before timing, all in one process. Prints a table with ratios last and writes JSON to
bench/results/. Without Triton installed, the interpreter column uses the reference figures
measured on the 2-core build machine (shared/notes/performance.md), marked as such.

    PYTHONPATH=src python bench/cpu.py [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import os
import platform
import statistics
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

import tilec
import tilec.language as tl
from tilec import config

# Triton 3.9 interpreter on the 2-core x86-64 build machine, from shared/notes/performance.md (ms)
INTERPRETER_REFERENCE_MS = {"vector_add": 2236.0, "softmax": 5610.0, "matmul": 2943.0}


@tilec.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@tilec.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


@tilec.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(y_ptr + row * stride + offs, d * rstd * w + b, mask=mask)


@tilec.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@dataclass
class Case:
    """One benchmark: the tilec launch (kernel, grid, arguments) and its references."""

    kernel: Any
    grid: tuple[int, ...]
    args: tuple[Any, ...]
    meta: dict[str, Any]
    check: Callable[[], None]
    numpy: Callable[[], Any]
    torch: Callable[[], Any] | None
    bytes: int = 0
    flops: int = 0

    def tilec(self) -> None:
        self.kernel[self.grid](*self.args, **self.meta)


class Timer:
    """Median wall time (default), or the calling thread's CPU time with one thread everywhere
    (``--single-thread``: robust when other processes share the cores), of contenders timed in
    interleaved rounds."""

    def __init__(self, single_thread: bool):
        self.single_thread = single_thread
        self.clock = time.thread_time if single_thread else time.perf_counter

    def interleaved(
        self, fns: dict[str, Callable[[], Any]], rounds: int = 15, round_time: float = 0.02
    ) -> dict[str, float]:
        """Median time per call of each contender, over rounds that take turns (the order
        rotates every round): a slow spell of a shared machine then hits all of them alike,
        where back-to-back windows of 0.3 s each swung the tilec/torch ratio by +-30% between
        runs. A pause before each round lets the previous contender's threads stop spinning
        (torch's OpenMP workers spin for milliseconds after a call); the round's first call (a
        warm-up, untimed) absorbs the wake-up of its own threads."""
        names = list(fns)
        times: dict[str, list[float]] = {name: [] for name in names}
        for r in range(rounds):
            for name in names[r % len(names) :] + names[: r % len(names)]:
                fn = fns[name]
                time.sleep(0.02)
                fn()
                start = time.perf_counter()
                while True:  # at least one timed call per round
                    t0 = self.clock()
                    fn()
                    times[name].append((self.clock() - t0) * 1e3)
                    if time.perf_counter() - start >= round_time:
                        break
        return {name: statistics.median(t) for name, t in times.items()}


def _check(name: str, got: np.ndarray, ref: np.ndarray, tol: float) -> None:
    scale = max(1.0, float(np.max(np.abs(ref))))
    err = float(np.max(np.abs(got.astype(np.float64) - ref)) / scale)
    if not err < tol:
        raise SystemExit(f"{name}: wrong result (relative error {err:.3g})")


def case_vector_add(rng: np.random.Generator, quick: bool) -> Case:
    n = 1 << (20 if quick else 22)
    x, y = (rng.standard_normal(n, dtype=np.float32) for _ in range(2))
    out = np.full(n, np.nan, np.float32)
    return Case(
        add_kernel, (tilec.cdiv(n, 1024),), (x, y, out, n), {"BLOCK": 1024},
        lambda: _check("vector_add", out, x.astype(np.float64) + y, 1e-6),
        lambda: np.add(x, y, out=out),
        _torch(lambda t: lambda: t.torch.add(t.x, t.y, out=t.out), x=x, y=y, out=out),
        bytes=12 * n,
    )  # fmt: skip


def case_softmax(rng: np.random.Generator, quick: bool) -> Case:
    rows, cols = (1024 if quick else 4096), 1024
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    out = np.full_like(x, np.nan)
    xd = x.astype(np.float64)
    ref = np.exp(xd - xd.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)

    def np_softmax() -> None:
        e = np.exp(x - x.max(1, keepdims=True))
        np.divide(e, e.sum(1, keepdims=True), out=out)

    return Case(
        softmax_kernel, (rows,), (out, x, cols, cols, cols), {"BLOCK": 1024},
        lambda: _check("softmax", out, ref, 1e-5), np_softmax,
        _torch(lambda t: lambda: t.torch.softmax(t.x, dim=1, out=t.out), x=x, out=out),
        bytes=8 * x.size,
    )  # fmt: skip


def case_layer_norm(rng: np.random.Generator, quick: bool) -> Case:
    rows, cols = (1024 if quick else 4096), 1024
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    w, b = (rng.standard_normal(cols, dtype=np.float32) for _ in range(2))
    y = np.full_like(x, np.nan)
    xd = x.astype(np.float64)
    ref = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * w + b

    def np_ln() -> None:
        mu = x.mean(1, keepdims=True)
        np.multiply((x - mu) / np.sqrt(x.var(1, keepdims=True) + 1e-5), w, out=y)
        y.__iadd__(b)

    return Case(
        layer_norm_kernel, (rows,), (x, y, w, b, cols, cols, 1e-5), {"BLOCK": 1024},
        lambda: _check("layer_norm", y, ref, 1e-4), np_ln,
        _torch(lambda t: lambda: t.F.layer_norm(t.x, (cols,), t.w, t.b, 1e-5), x=x, w=w, b=b),
        bytes=8 * x.size,
    )  # fmt: skip


def case_matmul(rng: np.random.Generator, quick: bool) -> Case:
    n = 256 if quick else 512
    a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    c = np.full((n, n), np.nan, np.float32)
    meta = {"BM": 64, "BN": 64, "BK": 32}
    return Case(
        matmul_kernel, (n // 64, n // 64), (a, b, c, n, n, n, n, 1, n, 1, n, 1), meta,
        lambda: _check("matmul", c, a.astype(np.float64) @ b, 1e-5),
        lambda: np.matmul(a, b, out=c),
        _torch(lambda t: lambda: t.torch.matmul(t.a, t.b, out=t.c), a=a, b=b, c=c),
        flops=2 * n**3,
    )  # fmt: skip


def _torch(
    make: Callable[[Any], Callable[[], Any]], **arrays: np.ndarray
) -> Callable[[], Any] | None:
    if importlib.util.find_spec("torch") is None:
        return None
    import torch
    import torch.nn.functional as F

    ns = SimpleNamespace(torch=torch, F=F, **{k: torch.from_numpy(v) for k, v in arrays.items()})
    return make(ns)


CASES = {"vector_add": case_vector_add, "softmax": case_softmax, "layer_norm": case_layer_norm,
         "matmul": case_matmul}  # fmt: skip


def _as_triton(kernel: Any) -> Any:
    """The same kernel source compiled by Triton (run by its interpreter: TRITON_INTERPRET=1).

    The source is compiled at its own line numbers in its own file, so Triton, which reads a
    kernel's source back through ``inspect``, finds the same text."""
    import triton
    import triton.language as ttl

    lines, first = inspect.getsourcelines(kernel.fn)
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    source = "\n" * (first - 1 + start) + textwrap.dedent("".join(lines[start:]))
    namespace: dict[str, Any] = {"tl": ttl, "triton": triton}
    exec(compile(source, inspect.getsourcefile(kernel.fn) or "<bench>", "exec"), namespace)
    return triton.jit(namespace[kernel.fn.__name__])


def run_interpreter(case: Case) -> float:
    """One run of the case under Triton's interpreter, in ms (it takes seconds)."""
    import torch

    tk = _as_triton(case.kernel)
    args = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in case.args]
    t0 = time.perf_counter()
    tk[case.grid](*args, **case.meta)
    return (time.perf_counter() - t0) * 1e3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    p.add_argument(
        "--single-thread",
        action="store_true",
        help="one thread everywhere, timed by thread CPU time (robust under load)",
    )
    p.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = p.parse_args(argv)
    if args.single_thread:
        os.environ["TILEC_NUM_THREADS"] = "1"
        config.reload()
        if importlib.util.find_spec("torch") is not None:
            import torch

            torch.set_num_threads(1)
    if _interpreter_available():
        os.environ["TRITON_INTERPRET"] = "1"
    timer = Timer(args.single_thread)
    rng = np.random.default_rng(0)
    rows = [
        _measure(name, make(rng, args.quick), timer, args.quick) for name, make in CASES.items()
    ]
    _report(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    path = args.out / f"cpu-{stamp}.json"
    mode = "single-thread CPU time" if args.single_thread else "wall time, all cores"
    doc = {"machine": _machine(), "mode": mode, "quick": args.quick, "results": rows}
    path.write_text(json.dumps(doc, indent=2))
    print(f"\nwrote {path}")
    return 0


def _interpreter_available() -> bool:
    return (
        importlib.util.find_spec("triton") is not None
        and importlib.util.find_spec("torch") is not None
    )


def _measure(name: str, case: Case, timer: Timer, quick: bool) -> dict[str, Any]:
    case.tilec()
    case.check()
    time.sleep(0.2)  # the float64 reference ran on OpenBLAS threads, which spin a while after
    row: dict[str, Any] = {"kernel": name}
    # numpy last and on its own: OpenBLAS's threads spin for tens of milliseconds after a
    # call, which would slow whichever contender took the next turn
    contenders = {"tilec": case.tilec}
    if case.torch is not None:
        contenders["torch"] = case.torch
    times = timer.interleaved(contenders)
    row["tilec_ms"], row["torch_ms"] = times["tilec"], times.get("torch")
    row["numpy_ms"] = timer.interleaved({"numpy": case.numpy})["numpy"]
    if _interpreter_available():
        row["interpreter_ms"], row["interpreter_source"] = run_interpreter(case), "measured"
    elif name in INTERPRETER_REFERENCE_MS and not quick:
        row["interpreter_ms"] = INTERPRETER_REFERENCE_MS[name]
        row["interpreter_source"] = "Triton not installed: 2-core reference from the notes"
    else:
        row["interpreter_ms"], row["interpreter_source"] = None, "no reference"
    if case.bytes:
        row["tilec_GBps"] = case.bytes / row["tilec_ms"] / 1e6
    if case.flops:
        row["tilec_GFLOPs"] = case.flops / row["tilec_ms"] / 1e6
    return row


def _machine() -> dict[str, Any]:
    from tilec.backends import registry

    target = registry.get("cpu").driver.current_target()
    info: dict[str, Any] = {
        "cpu": target.arch,
        "triple": target.triple,
        "cores": os.cpu_count(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "numpy": np.__version__,
        "tilec": tilec.__version__,
    }
    if importlib.util.find_spec("torch") is not None:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    return info


def _report(rows: list[dict[str, Any]]) -> None:
    def fmt(v: float | None) -> str:
        return f"{v:9.3f}" if v is not None else "        -"

    print(
        f"{'kernel':<12}{'tilec ms':>10}{'torch ms':>10}{'numpy ms':>10}{'interp ms':>10}"
        f"{'tilec/torch':>12}{'interp/tilec':>13}"
    )
    for r in rows:
        vs_torch = r["tilec_ms"] / r["torch_ms"] if r["torch_ms"] else None
        vs_interp = r["interpreter_ms"] / r["tilec_ms"] if r["interpreter_ms"] else None
        r["tilec_over_torch"], r["interpreter_over_tilec"] = vs_torch, vs_interp
        print(
            f"{r['kernel']:<12}{fmt(r['tilec_ms'])} {fmt(r['torch_ms'])} {fmt(r['numpy_ms'])} "
            f"{fmt(r['interpreter_ms'])} {fmt(vs_torch)}x  {fmt(vs_interp)}x"
        )


if __name__ == "__main__":
    raise SystemExit(main())
