"""Host launch overhead of tilec beside Triton and torch, and first-call time in a fresh process.

Times rounds of back-to-back launches of empty 5- and 20-argument kernels on a 1-program grid
(the GPU synchronized between rounds), the 5-argument kernel autotuned over two configs, the
launcher's raw native call with pre-packed arguments (the floor), torch's eager add on a small
tensor and Triton's launches when installed, taking the rounds in turn and keeping each one's
best; then the first call in a fresh process with a cold and with a warm kernel cache. Prints
a table and writes JSON to bench/results/.

    PYTHONPATH=src python bench/launch.py [--device cpu|cuda] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402


# Near-empty kernels: each program copies one element, so the launch dominates.
@tilec.jit
def empty5(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.load(x_ptr + pid))


# The same kernel autotuned over two configs (key n): a warm launch looks the tuned config up.
tuned5 = tilec.autotune(
    configs=[tilec.Config({"BLOCK": 64}), tilec.Config({"BLOCK": 128})], key=["n"],
    warmup=1, rep=5,
)(tilec.jit(empty5.fn))  # fmt: skip


@tilec.jit
def empty20(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9,
            n0, n1, n2, n3, n4, n5, n6, n7, n8, n9):  # fmt: skip
    pid = tl.program_id(0)
    tl.store(p1 + pid, tl.load(p0 + pid))


# Launches per timed round on the GPU: few enough that the driver's launch queue never fills,
# so the host clock measures the host's cost rather than how fast the GPU drains tiny kernels.
GPU_ROUND = 256


def _round_us(fn: Callable[[], Any], per_round: int, sync: Callable[[], None]) -> float:
    """One round of back-to-back calls, in microseconds per call (the GPU drains after the
    round, outside the timing)."""
    t0 = time.perf_counter()
    for _ in range(per_round):
        fn()
    elapsed = time.perf_counter() - t0
    sync()
    return elapsed / per_round * 1e6


def _interleaved(
    calls: dict[str, Callable[[], Any] | None], n: int, sync: Callable[[], None], gpu: bool
) -> dict[str, float | None]:
    """Each contender's best round, the rounds taken in turn (tilec, the floor, torch, Triton,
    then again) so that a slow spell of a shared machine slows all of them alike."""
    per_round = GPU_ROUND if gpu else 1000
    sweeps = max(5, n // per_round)
    live = {name: fn for name, fn in calls.items() if fn is not None}
    for fn in live.values():  # warm-up: compiled, loaded, caches and clocks settled
        _round_us(fn, per_round, sync)
    best = dict.fromkeys(live, float("inf"))
    for _ in range(sweeps):
        for name, fn in live.items():
            best[name] = min(best[name], _round_us(fn, per_round, sync))
    return {name: best.get(name) for name in calls}


def _arrays(device: str, count: int) -> list[Any]:
    if device == "cpu":
        return [np.zeros(1024, np.float32) for _ in range(count)]
    import torch

    return [torch.zeros(1024, device="cuda") for _ in range(count)]


def _sync(device: str) -> Callable[[], None]:
    if device == "cpu":
        return lambda: None
    import torch

    return torch.cuda.synchronize


def _native_floor(kernel: Any, values: tuple[Any, ...], device: str) -> Callable[[], Any]:
    """The launcher alone: one native call with arguments already packed."""
    from tilec.backends import launcher

    kernel = kernel.launcher  # the backend's Launcher holds the packed-call pieces
    if device == "cpu":
        buf, args, status = kernel._new_buffer()
        kernel._struct.pack_into(buf, 0, *(values[i] for i in kernel._pick))
        run, addr, threads = kernel._run, kernel._address, kernel._threads
        return lambda: run(addr, args, (1, 1, 1), threads, status) or buf  # buf kept alive
    values = tuple(values[i] for i in kernel._pick)
    launch = launcher.cuda_launcher()
    f, block, codes = kernel._function, kernel._block, kernel._codes
    shared = kernel._shared
    return lambda: launch(f, (1, 1, 1), block, shared, 0, codes, values)


def _torch_eager(device: str) -> Callable[[], Any] | None:
    if importlib.util.find_spec("torch") is None:
        return None
    import torch

    a = torch.zeros(1024, device=device)
    out = torch.empty_like(a)
    return lambda: torch.add(a, a, out=out)


def _triton(
    device: str,
) -> tuple[Callable[[], Any], Callable[[], Any], Callable[[], Any], str] | None:
    """Triton's launches of the same kernels (5 arguments, 5 autotuned, 20) and its version."""
    if device != "cuda" or importlib.util.find_spec("triton") is None:
        return None
    import triton  # the reference, only timed beside tilec

    path = Path(tempfile.mkdtemp()) / "triton_empty.py"
    args20 = ", ".join([f"p{i}" for i in range(10)] + [f"n{i}" for i in range(10)])
    path.write_text(
        "import triton\nimport triton.language as tl\n\n@triton.jit\n"
        "def empty5(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    pid = tl.program_id(0)\n    tl.store(out_ptr + pid, tl.load(x_ptr + pid))\n\n"
        "@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})],"
        " key=['n'], warmup=1, rep=5)\n@triton.jit\n"
        "def tuned5(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    pid = tl.program_id(0)\n    tl.store(out_ptr + pid, tl.load(x_ptr + pid))\n\n"
        f"@triton.jit\ndef empty20({args20}):\n"
        "    pid = tl.program_id(0)\n    tl.store(p1 + pid, tl.load(p0 + pid))\n"
    )
    spec = importlib.util.spec_from_file_location("triton_empty", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = _arrays(device, 10)
    return (
        lambda: mod.empty5[(1,)](x[0], x[1], x[2], 1024, BLOCK=128),
        lambda: mod.tuned5[(1,)](x[0], x[1], x[2], 1024),
        lambda: mod.empty20[(1,)](*x, *[1024] * 10),
        triton.__version__,
    )


def launch_overhead(device: str, n: int) -> dict[str, Any]:
    x = _arrays(device, 10)
    call5 = lambda: empty5[(1,)](x[0], x[1], x[2], 1024, BLOCK=128)  # noqa: E731
    call20 = lambda: empty20[(1,)](*x, *[1024] * 10)  # noqa: E731
    tuned = lambda: tuned5[(1,)](x[0], x[1], x[2], 1024)  # noqa: E731
    k5, k20 = call5(), call20()
    v5 = (*tuple(_address(a) for a in x[:3]), 1024, 128)
    v20 = tuple(_address(a) for a in x) + (1024,) * 10
    triton = _triton(device)
    calls = {
        "tilec 5 args": call5,
        "tilec 20 args": call20,
        "tilec 5 args autotuned": tuned,
        "native floor 5 args": _native_floor(k5, v5, device),
        "native floor 20 args": _native_floor(k20, v20, device),
        "torch eager add": _torch_eager(device),
        "triton 5 args": triton[0] if triton else None,
        "triton 5 args autotuned": triton[1] if triton else None,
        "triton 20 args": triton[2] if triton else None,
    }
    result: dict[str, Any] = _interleaved(calls, n, _sync(device), device == "cuda")
    result["triton version"] = triton[3] if triton else None
    return result


def _address(a: Any) -> int:
    return int(a.data_ptr()) if hasattr(a, "data_ptr") else int(a.ctypes.data)


def first_call_child(device: str) -> None:
    """In a fresh process: time from interpreter start-up to the first launch returning."""
    x = _arrays(device, 3)
    t0 = time.perf_counter()
    empty5[(1,)](x[0], x[1], x[2], 1024, BLOCK=128)
    _sync(device)()
    t1 = time.perf_counter()
    print(json.dumps({"first_call_s": t1 - t0, "since_import_s": t1 - T_START}))


def first_call(device: str) -> dict[str, Any]:
    cache = tempfile.mkdtemp(prefix="tilec-bench-cache-")
    env = {**os.environ, "TILEC_CACHE_DIR": cache}
    results = {}
    for label in ("cold cache", "warm cache"):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, __file__, "--first-call", "--device", device],
                             capture_output=True, text=True, env=env, check=True)  # fmt: skip
        child = json.loads(out.stdout.strip().splitlines()[-1])
        child["process_s"] = time.perf_counter() - t0
        results[label] = child
    return results


def _machine() -> dict[str, Any]:
    from tilec.backends import launcher

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "tilec": tilec.__version__,
        "numpy": np.__version__,
        "launcher": launcher.status().reason,
    }


def _table(overhead: dict[str, Any], first: dict[str, Any], device: str) -> str:
    lines = [f"launch overhead on {device}, 1-program grid (µs per launch, best round)"]
    for name, value in overhead.items():
        if isinstance(value, float):
            lines.append(f"  {name:28} {value:8.2f}")
    lines.append("first call in a fresh process (s)")
    for label, r in first.items():
        lines.append(f"  {label:12} first call {r['first_call_s']:.3f}  since import "
                     f"{r['since_import_s']:.3f}  whole process {r['process_s']:.3f}")  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--first-call", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.first_call:
        first_call_child(ns.device)
        return 0
    n = 2_000 if ns.quick else 20_000
    overhead = launch_overhead(ns.device, n)
    first = first_call(ns.device)
    results = {"device": ns.device, "launches": n, "machine": _machine(),
               "launch_us": overhead, "first_call": first}  # fmt: skip
    out = Path(__file__).with_name("results")
    out.mkdir(exist_ok=True)
    path = out / f"launch-{ns.device}-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(results, indent=2))
    print(_table(overhead, first, ns.device))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
