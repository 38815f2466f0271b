"""``tilec.testing`` (Triton's ``triton.testing``): benchmarking and comparison helpers."""

from .runtime.benchmark import Benchmark, Mark, perf_report
from .runtime.testing import assert_close, do_bench, do_bench_cudagraph

__all__ = ["Benchmark", "Mark", "assert_close", "do_bench", "do_bench_cudagraph", "perf_report"]
