"""GPU timing for do_bench (the CUDA driver's benchmarker): CUDA events through cuda-bindings, L2 flushed between runs.

Events are recorded on torch's current stream when the program uses torch (so they order
with its work), else on the default stream. A 256 MiB device buffer is cleared before each
timed call so every run starts from a cold L2, as Triton's do_bench does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...errors import LaunchError
from .launch import torch_stream as _stream

_FLUSH_BYTES = 256 << 20


def _driver() -> Any:
    try:
        from cuda.bindings import driver  # lazy: optional (the cuda extra)
    except ImportError as exc:
        raise LaunchError(
            f"GPU timing needs cuda-bindings ({exc}): install tilec's CUDA extra "
            "(`tilec doctor` prints the pip line that works for this install)"
        ) from exc
    return driver


def _check(result: Any, what: str) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise LaunchError(f"{what} failed: {err!r}", code=int(err))
    return rest[0] if len(rest) == 1 else rest


class _Events:
    """A pair of CUDA events and the L2 flush buffer, freed on close."""

    def __init__(self, driver: Any, count: int) -> None:
        self.d = driver
        flags = driver.CUevent_flags.CU_EVENT_DEFAULT
        self.starts = [_check(driver.cuEventCreate(flags), "cuEventCreate") for _ in range(count)]
        self.ends = [_check(driver.cuEventCreate(flags), "cuEventCreate") for _ in range(count)]
        self.flush = _check(driver.cuMemAlloc(_FLUSH_BYTES), "cuMemAlloc")

    def clear_l2(self, stream: int) -> None:
        _check(
            self.d.cuMemsetD32Async(self.flush, 0, _FLUSH_BYTES // 4, stream), "cuMemsetD32Async"
        )

    def elapsed(self) -> list[float]:
        _check(self.d.cuEventSynchronize(self.ends[-1]), "cuEventSynchronize")
        return [
            float(_check(self.d.cuEventElapsedTime(s, e), "cuEventElapsedTime"))
            for s, e in zip(self.starts, self.ends)
        ]

    def close(self) -> None:
        for ev in (*self.starts, *self.ends):
            self.d.cuEventDestroy(ev)
        self.d.cuMemFree(self.flush)


def _synchronize(driver: Any) -> None:
    _check(driver.cuCtxSynchronize(), "cuCtxSynchronize")


def _estimate(driver: Any, fn: Callable[[], Any], stream: int) -> float:
    """Milliseconds per call, from 5 back-to-back calls."""
    ev = _Events(driver, 1)
    try:
        _check(driver.cuEventRecord(ev.starts[0], stream), "cuEventRecord")
        for _ in range(5):
            ev.clear_l2(stream)
            fn()
        _check(driver.cuEventRecord(ev.ends[0], stream), "cuEventRecord")
        return max(ev.elapsed()[0] / 5, 1e-4)
    finally:
        ev.close()


def time_calls(
    fn: Callable[[], Any], warmup: float, rep: float, grad_to_none: Sequence[Any] | None
) -> list[float]:
    """Milliseconds of each timed call of ``fn`` on the GPU."""
    driver = _driver()
    fn()  # compile and load; this also makes the context current
    _synchronize(driver)
    stream = _stream()
    estimate = _estimate(driver, fn, stream)
    n_warmup = max(1, int(warmup / estimate))
    n_repeat = max(1, min(int(rep / estimate), 10_000))
    for _ in range(n_warmup):
        fn()
    ev = _Events(driver, n_repeat)
    try:
        for i in range(n_repeat):
            for x in grad_to_none or ():
                x.grad = None
            ev.clear_l2(stream)
            _check(driver.cuEventRecord(ev.starts[i], stream), "cuEventRecord")
            fn()
            _check(driver.cuEventRecord(ev.ends[i], stream), "cuEventRecord")
        return ev.elapsed()
    finally:
        ev.close()


def time_graph(
    torch: Any, fn: Callable[[], Any], rep: float, grad_to_none: Sequence[Any] | None
) -> list[float]:
    """Milliseconds per call of ``fn`` replayed from a torch CUDA graph."""
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()  # compile outside the capture
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            graph.replay()
        end.record()
        torch.cuda.synchronize()
        estimate = max(start.elapsed_time(end) / 5, 1e-4)
        n = max(1, min(int(rep / estimate), 1000))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n):
                for x in grad_to_none or ():
                    x.grad = None
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n)
    return times
