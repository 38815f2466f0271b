"""On the GPU: Inductor-style [1, N] and [XBLOCK, RBLOCK] reductions, a row-wise softmax, large
blocks, against numpy in float64 with NaN-poisoned outputs; and the occupancy figures a compiled
kernel reports (``n_regs``, ``metadata.shared``) equal what the driver reads from the cubin."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_harness import gpu_available
from test_layout_scaling import add, inductor_sum, philox_sum

import tilec
import tilec.language as tl

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


def _dev(a: np.ndarray):  # type: ignore[no-untyped-def]
    import torch

    return torch.from_numpy(np.ascontiguousarray(a)).cuda()


def _nan(shape: tuple[int, ...]):  # type: ignore[no-untyped-def]
    return _dev(np.full(shape, np.nan, np.float32))


def _host(t) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    torch.cuda.synchronize()
    return t.cpu().numpy().astype(np.float64)


@tilec.jit
def inductor_softmax(in_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    mask = (rindex < rnumel) & xmask
    x = tl.load(in_ptr + (rindex + rnumel * xindex), mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, 1)[:, None])
    tl.store(out_ptr + (rindex + rnumel * xindex), e / tl.sum(e, 1)[:, None], mask)


@tilec.jit
def column_sum(in_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    """Sum over dimension 0 of a row-major [rnumel, xnumel] array: contiguous along x."""
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[:, None]
    x = tl.load(in_ptr + (xindex + xnumel * rindex), (rindex < rnumel) & xmask, other=0.0)
    tl.store(out_ptr + xindex, tl.sum(x, 0)[None, :], xmask)


@pytest.mark.parametrize(("xblock", "rblock"), [(1, 2048), (1, 8192), (8, 256), (4, 1024)])
@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_inductor_row_sum(xblock: int, rblock: int, num_warps: int) -> None:
    rows, cols = 37, 5000  # several loop trips, a ragged last one, a ragged last program
    x = np.random.default_rng().standard_normal((rows, cols)).astype(np.float32)
    out = _nan((rows,))
    inductor_sum[(-(-rows // xblock),)](
        _dev(x), out, rows, cols, XBLOCK=xblock, RBLOCK=rblock, num_warps=num_warps
    )
    np.testing.assert_allclose(_host(out), x.astype(np.float64).sum(1), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(("xblock", "rblock"), [(1, 1024), (4, 1024), (2, 4096)])
def test_inductor_row_softmax(xblock: int, rblock: int) -> None:
    rows, cols = 19, 1000
    x = np.random.default_rng().standard_normal((rows, cols)).astype(np.float32)
    out = _nan((rows, cols))
    inductor_softmax[(-(-rows // xblock),)](_dev(x), out, rows, cols, XBLOCK=xblock, RBLOCK=rblock)
    e = np.exp(x - x.max(1, keepdims=True).astype(np.float64))
    np.testing.assert_allclose(_host(out), e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-7)


def test_column_sum_vectorized_along_dimension_1() -> None:
    rows, cols = 300, 1000
    x = np.random.default_rng().standard_normal((rows, cols)).astype(np.float32)
    out = _nan((cols,))
    column_sum[(-(-cols // 64),)](_dev(x), out, cols, rows, XBLOCK=64, RBLOCK=512)
    np.testing.assert_allclose(_host(out), x.astype(np.float64).sum(0), rtol=1e-4, atol=1e-3)


def test_philox_row_sum_matches_the_same_kernel_one_element_per_row() -> None:
    """tl.rand inside a [1, N] reduction: the sum of N uniform numbers, in [0, N)."""
    rows, cols = 16, 3000
    a, b = _nan((rows,)), _nan((rows,))
    philox_sum[(rows,)](a, 1234, rows, cols, XBLOCK=1, RBLOCK=1024)
    philox_sum[(rows // 8,)](b, 1234, rows, cols, XBLOCK=8, RBLOCK=256)
    got_a, got_b = _host(a), _host(b)
    assert np.all((got_a > 0) & (got_a < cols))
    np.testing.assert_allclose(got_a, got_b, rtol=1e-5)


@pytest.mark.parametrize(("block", "num_warps"), [(16384, 4), (32768, 8), (65536, 8)])
def test_large_blocks(block: int, num_warps: int) -> None:
    n = 3 * block + 77
    rng = np.random.default_rng()
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = _nan((n,))
    add[(-(-n // block),)](_dev(x), _dev(y), out, n, BLOCK=block, num_warps=num_warps)
    np.testing.assert_allclose(_host(out), x.astype(np.float64) + y, rtol=1e-6)


@pytest.mark.parametrize("name", ["row_sum", "softmax"])
def test_occupancy_figures_equal_the_drivers(name: str) -> None:
    from cuda.bindings import driver as cu

    from tilec.backends.cuda.driver import CudaDriver, check

    kernel, sig = {
        "row_sum": (inductor_sum, "*fp32:16, *fp32:16, i32, i32, XBLOCK=4, RBLOCK=1024"),
        "softmax": (inductor_softmax, "*fp32:16, *fp32:16, i32, i32, XBLOCK=2, RBLOCK=2048"),
    }[name]
    driver = CudaDriver()
    compiled = tilec.compile(kernel, sig, target=driver.current_target(), num_warps=8)
    assert compiled.metadata.n_regs > 0
    loaded = driver.load(compiled)
    fa = cu.CUfunction_attribute
    regs = check(cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_NUM_REGS, loaded.function), "regs")
    static = check(
        cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, loaded.function), "smem"
    )
    local = check(
        cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, loaded.function), "local"
    )
    assert compiled.metadata.n_regs == regs
    assert static == 0  # all shared memory is dynamic: metadata.shared is what a launch passes
    assert compiled.metadata.shared > 0  # the cross-warp reduction's scratch
    assert (compiled.metadata.n_spills > 0) <= (local > 0)
