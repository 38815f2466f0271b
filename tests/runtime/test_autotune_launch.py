"""Warm launches of autotuned and heuristic kernels on the real CPU backend: the tuned config
is reused (Triton's cache keys, with dtypes as text), launch options reach the kernel table
through the native path, and heuristics see the ones before them."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl

pytestmark = pytest.mark.usefixtures("private_cache")


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


def _grid(meta):
    return (tilec.cdiv(meta["n"], meta["BLOCK"]),)


def test_warm_autotuned_launches_reuse_the_tuned_config():
    tuned = tilec.autotune(
        configs=[tilec.Config({"BLOCK": 32}, num_warps=1), tilec.Config({"BLOCK": 128})],
        key=["n"], warmup=1, rep=3,
    )(scale)  # fmt: skip
    rng = np.random.default_rng()
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal(300).astype(dtype)
        for factor in (2.0, -0.5, 3.0):  # the later launches are warm
            out = np.full(300, np.nan, dtype)
            tuned[_grid](x, out, 300, factor)
            np.testing.assert_array_equal(out, x * dtype(factor))
    assert sorted(tuned.cache) == [(300, "float32", "float32"), (300, "float64", "float64")]
    timings = tuned.configs_timings
    tuned[_grid](x, out, 300, 1.0)
    assert tuned.configs_timings is timings  # not timed again


def test_clearing_the_cache_tunes_again():
    tuned = tilec.autotune(
        configs=[tilec.Config({"BLOCK": 64}), tilec.Config({"BLOCK": 128})], key=["n"],
        warmup=1, rep=3, cache_results=False,
    )(scale)  # fmt: skip
    x = np.ones(100, np.float32)
    out = np.zeros(100, np.float32)
    tuned[_grid](x, out, 100, 1.0)
    first = tuned.configs_timings
    tuned.cache.clear()
    tuned[_grid](x, out, 100, 1.0)
    assert tuned.configs_timings is not first


def test_launch_options_through_the_native_path_share_the_table():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    for _ in range(3):
        scale[(1,)](x, out, 64, 2.0, BLOCK=64, num_warps=2)
    count = len(scale._kernels)
    for _ in range(3):
        scale[(1,)](x, out, 64, 2.0, BLOCK=64, num_warps=2)
        scale[lambda meta: (meta["num_warps"] // 2,)](x, out, 64, 2.0, BLOCK=64, num_warps=2)
    assert len(scale._kernels) == count
    np.testing.assert_array_equal(out, 2 * x)


def test_heuristics_see_the_ones_before_them():
    seen = []

    def factor(args):
        seen.append(args["BLOCK"])
        return 2.0

    kernel = tilec.heuristics({"BLOCK": lambda args: 64, "factor": factor})(scale)
    x = np.arange(100, dtype=np.float32)
    out = np.zeros(100, np.float32)
    kernel[_grid](x, out, 100)
    kernel[_grid](x, out, 100)
    assert seen == [64, 64]
    np.testing.assert_array_equal(out, 2 * x)
