"""Pipelined loops on the GPU (marked gpu): loads copied ahead with cp.async give exactly what
plain loads give — masked lanes read ``other``, accumulators carry, every trip count from 0 to
past the stage count — checked against numpy in float64 (and torch.softmax)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pipeline_kernels as K
import pytest
from cuda_harness import gpu_available

from tilec import config

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]

STAGES = [1, 2, 3, 4]


@pytest.fixture(autouse=True)
def _pipelining_on():
    """cp.async pipelining is opt-in (TILEC_EXPERIMENTAL=cuda-pipelining) until verified on GPUs."""
    with config.override(experimental=frozenset({"cuda-pipelining"})):
        yield


def _trips(stages: int) -> list[int]:
    return sorted({0, 1, 2, max(stages - 1, 0), stages, stages + 1, 37})


def _dev(a: np.ndarray):  # type: ignore[no-untyped-def]
    import torch

    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def _nan(shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
    return _dev(np.full(shape, np.nan, np.float32))


def _host(t) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    torch.cuda.synchronize()
    return t.cpu().numpy().astype(np.float64)


@pytest.mark.parametrize("stages", STAGES)
def test_column_sums_masked_columns_read_other(stages: int) -> None:
    rng = np.random.default_rng()
    n_cols, stride, block = 200, 203, 256
    for rows in _trips(stages):
        x = rng.standard_normal((max(rows, 1), stride)).astype(np.float32)
        out = _nan((block,))
        K.column_sums[(1,)](_dev(x), out, rows, n_cols, stride, 0.5, block, stages, num_warps=2)
        ref = K.column_sums_ref(x[:rows], n_cols, 0.5, block)
        np.testing.assert_allclose(_host(out), ref, rtol=1e-5, atol=1e-4, err_msg=f"rows={rows}")


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("tail", [0, 37])
def test_weighted_blocks_masked_tail(stages: int, tail: int) -> None:
    rng = np.random.default_rng()
    block = 512
    for trips in _trips(stages):
        n = max(trips * block - tail, 0) if trips else 0
        x = rng.standard_normal(max(n, 1)).astype(np.float32)
        out = _nan((block,))
        K.weighted_blocks[(1,)](_dev(x), out, n, 1.5, block, stages, num_warps=4)
        ref = K.weighted_blocks_ref(x, n, 1.5, block)
        np.testing.assert_allclose(_host(out), ref, rtol=1e-5, atol=1e-3, err_msg=f"n={n}")


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_advancing_pointers(stages: int, dtype: type, num_warps: int) -> None:
    rng = np.random.default_rng()
    block = 128
    for trips in _trips(stages):
        x = rng.standard_normal(max(trips, 1) * block).astype(dtype)
        y = rng.standard_normal(max(trips, 1) * block).astype(dtype)
        out = _nan((block,))
        K.advancing_pointers[(1,)](_dev(x), _dev(y), out, trips, block, stages, num_warps=num_warps)
        ref = K.advancing_pointers_ref(x, y, trips, block) if trips else np.zeros(block)
        np.testing.assert_allclose(_host(out), ref, rtol=1e-4, atol=1e-3, err_msg=f"{trips=}")


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("n_rows, n_cols", [(0, 20), (5, 20), (16, 32), (77, 29), (200, 1)])
def test_tile_rows_masked_both_axes(stages: int, n_rows: int, n_cols: int) -> None:
    rng = np.random.default_rng()
    rows, cols = 16, 32
    x = rng.standard_normal(max(n_rows * n_cols, 1)).astype(np.float32)
    out = _nan((rows, cols))
    K.tile_rows[(1,)](_dev(x), out, n_rows, n_cols, rows, cols, stages, num_warps=4)
    ref = K.tile_rows_ref(x, n_rows, n_cols, rows, cols)
    np.testing.assert_allclose(_host(out), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("stages", [1, 3])
def test_gather_behind_a_pipelined_index_load(stages: int) -> None:
    rng = np.random.default_rng()
    block, n = 256, 1000
    x = rng.standard_normal(4096).astype(np.float32)
    idx = rng.integers(0, 4096, n).astype(np.int32)
    out = _nan((block,))
    K.gather_rows[(1,)](_dev(x), _dev(idx), out, n, block, stages, num_warps=4)
    padded = np.zeros(-(-n // block) * block)
    padded[:n] = x[idx]
    ref = padded.reshape(-1, block).sum(axis=0)
    np.testing.assert_allclose(_host(out), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("stages", [1, 3])
def test_loop_reading_its_own_stores(stages: int) -> None:
    rng = np.random.default_rng()
    rows, block = 9, 128
    x = rng.standard_normal((rows, block)).astype(np.float32)
    dx, out = _dev(x), _nan((block,))
    K.prefix_through_memory[(1,)](dx, out, rows, block, stages, num_warps=4)
    ref = K.prefix_through_memory_ref(x, rows)
    np.testing.assert_allclose(_host(dx), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_host(out), ref[-1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stages", STAGES)
@pytest.mark.parametrize("shape", [(1823, 781), (64, 1024), (300, 4096), (7, 33)])
@pytest.mark.parametrize("programs", [1, 13, 132])
def test_persistent_softmax_matches_torch(
    stages: int, shape: tuple[int, int], programs: int
) -> None:
    import torch

    import tilec

    rows, cols = shape
    x = torch.randn(rows, cols, device="cuda")
    y = torch.full_like(x, float("nan"))
    block = tilec.next_power_of_2(cols)
    K.softmax_persistent[(min(programs, rows),)](
        y, x, x.stride(0), y.stride(0), rows, cols, BLOCK=block, num_stages=stages, num_warps=8
    )
    ref = torch.softmax(x.double(), dim=1)
    torch.testing.assert_close(y.double(), ref, rtol=1e-5, atol=1e-6)


def test_driver_jit_kernel_reports_the_loaded_register_count() -> None:
    """With no assembler the driver JIT-compiles the PTX: the kernel's n_regs (what Triton's
    softmax tutorial sizes its grid with) is the loaded function's figure, not 0."""
    from support.build import build
    from tilec.backends.cuda.compiler import CudaCompiler
    from tilec.backends.cuda.driver import CudaDriver
    from tilec.backends.target import CompileOptions

    driver = CudaDriver()
    sig = ("*fp32", "*fp32", "i32", "i32", "i32", "i32", 1024, 3)
    module = build(K.softmax_persistent.fn, *sig)
    options = CompileOptions(num_warps=8)
    compiled = CudaCompiler(assembler="none").compile(module, driver.current_target(), options)
    assert compiled.metadata.n_regs == 0  # nothing assembled it here
    loaded = driver.load(compiled)
    kernel = driver.launcher(compiled, loaded, compiled.metadata.params)
    assert kernel.metadata.n_regs == loaded.n_regs > 0
    assert kernel.metadata.shared == compiled.metadata.shared > 0
