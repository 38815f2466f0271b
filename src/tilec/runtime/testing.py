"""Triton's ``triton.testing`` under tilec: do_bench, do_bench_cudagraph, assert_close.

``do_bench`` times with the benchmarker of the backend's driver (the host clock, or device
events with the cache flushed between runs as Triton does). perf_report / Benchmark live in
``tilec.runtime.benchmark``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from ..backends import registry
from ..errors import UsageError
from . import driver

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


def _driver(device: str | None) -> Any:
    """The driver of backend ``device``, by default the active driver's."""
    return registry.get(device or driver.active.backend).driver


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

    ``device`` (a backend name) picks the clock; by default the active driver's backend.
    """
    times = _driver(device).benchmarker()(fn, warmup, rep, grad_to_none)
    return _summarize(times, quantiles, return_mode)


def do_bench_cudagraph(
    fn: Callable[[], Any],
    rep: float = 20,
    grad_to_none: Sequence[Any] | None = None,
    quantiles: Sequence[float] | None = None,
    return_mode: str = "mean",
) -> float | list[float]:
    """Time ``fn`` replayed from a device graph (captured with torch, as in Triton); a backend
    without graphs raises UnsupportedFeature."""
    times = _driver(None).benchmarker(graph=True)(fn, 0, rep, grad_to_none)
    return _summarize(times, quantiles, return_mode)


def _to_numpy(x: Any) -> Any:
    import numpy as np  # lazy: ~60 ms, only assert_close needs it

    if hasattr(x, "detach") and hasattr(x, "numpy"):  # torch tensors, without importing torch
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
    import numpy as np  # lazy: ~60 ms, only assert_close needs it

    a, b = _to_numpy(x), _to_numpy(y)
    a = a if a.dtype == bool else a.astype(np.float64)
    b = b if b.dtype == bool else b.astype(np.float64)
    np.testing.assert_allclose(
        a, b, atol=1e-2 if atol is None else atol, rtol=0.0 if rtol is None else rtol,
        equal_nan=True, err_msg=err_msg,
    )  # fmt: skip
