"""Triton's ``triton.testing`` under tilec: do_bench, do_bench_cudagraph, assert_close.

``do_bench`` times with the host clock on the CPU backend and with CUDA events (through
cuda-bindings, on torch's current stream when torch is in use) on the GPU, flushing the L2
cache between runs as Triton does. perf_report / Benchmark live in ``tilec.runtime.benchmark``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UnsupportedFeature, UsageError

_RETURN_MODES = ("min", "max", "mean", "median", "all")


def _summarize(
    times: list[float], quantiles: Sequence[float] | None, return_mode: str
) -> float | list[float]:
    if return_mode not in _RETURN_MODES:
        raise UsageError(f"return_mode must be one of {_RETURN_MODES}, got {return_mode!r}")
    if quantiles is not None:
        ordered = sorted(times)
        result = [_quantile(ordered, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return list(times)
    pick: dict[str, Callable[[list[float]], float]] = {
        "min": min,
        "max": max,
        "mean": statistics.fmean,
        "median": statistics.median,
    }
    return pick[return_mode](times)


def _quantile(ordered: list[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (numpy's default method)."""
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _clear_grads(grad_to_none: Sequence[Any] | None) -> None:
    for x in grad_to_none or ():
        x.grad = None


def _device_kind(device: str | None) -> str:
    if device is not None:
        return device
    from . import driver

    return str(driver.active.get_current_target().backend)


def do_bench(
    fn: Callable[[], Any],
    warmup: float = 25,
    rep: float = 100,
    grad_to_none: Sequence[Any] | None = None,
    quantiles: Sequence[float] | None = None,
    return_mode: str = "mean",
    *,
    device: str | None = None,
) -> float | list[float]:
    """Milliseconds per call of ``fn``: ``warmup`` ms of warm-up, then about ``rep`` ms timed.

    ``device`` ("cpu" / "cuda") picks the clock; by default the active driver's backend.
    """
    kind = _device_kind(device)
    if kind == "cuda":
        from . import cuda_timing

        times = cuda_timing.time_calls(fn, warmup, rep, grad_to_none)
    else:
        times = _time_host(fn, warmup, rep, grad_to_none)
    return _summarize(times, quantiles, return_mode)


def _time_host(
    fn: Callable[[], Any], warmup: float, rep: float, grad_to_none: Sequence[Any] | None
) -> list[float]:
    fn()  # compile and load outside the timing
    start = time.perf_counter()
    calls = 0
    while calls < 5 or time.perf_counter() - start < 1e-3:
        fn()
        calls += 1
    estimate = max((time.perf_counter() - start) * 1e3 / calls, 1e-6)
    for _ in range(max(1, int(warmup / estimate))):
        fn()
    times = []
    for _ in range(max(1, min(int(rep / estimate), 1_000_000))):
        _clear_grads(grad_to_none)
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return times


def do_bench_cudagraph(
    fn: Callable[[], Any],
    rep: float = 20,
    grad_to_none: Sequence[Any] | None = None,
    quantiles: Sequence[float] | None = None,
    return_mode: str = "mean",
) -> float | list[float]:
    """Time ``fn`` replayed from a CUDA graph (captured with torch, as in Triton)."""
    if _device_kind(None) != "cuda":
        raise UnsupportedFeature("do_bench_cudagraph needs a CUDA device; use do_bench on the CPU")
    torch = sys.modules.get("torch")
    if torch is None:
        raise UnsupportedFeature(
            "do_bench_cudagraph captures with torch.cuda.CUDAGraph: import torch"
        )
    from . import cuda_timing

    times = cuda_timing.time_graph(torch, fn, rep, grad_to_none)
    return _summarize(times, quantiles, return_mode)


def _to_numpy(x: Any) -> Any:
    import numpy as np

    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch tensors, without importing torch
        x = x.detach().cpu()
        if str(x.dtype) in ("torch.bfloat16", "torch.float8_e4m3fn", "torch.float8_e5m2"):
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def assert_close(
    x: Any, y: Any, atol: float | None = None, rtol: float | None = None, err_msg: str = ""
) -> None:
    """Raise AssertionError unless ``x`` and ``y`` agree within ``atol + rtol * |y|``.

    Triton's defaults: ``atol=1e-2``, ``rtol=0``. NaNs must match NaNs.
    """
    import numpy as np

    a, b = _to_numpy(x), _to_numpy(y)
    a = a if a.dtype == bool else a.astype(np.float64)
    b = b if b.dtype == bool else b.astype(np.float64)
    np.testing.assert_allclose(
        a, b, atol=1e-2 if atol is None else atol, rtol=0.0 if rtol is None else rtol,
        equal_nan=True, err_msg=err_msg,
    )  # fmt: skip
