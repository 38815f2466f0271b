"""The kernel ``warmup`` returns runs tutorial 02's host code: ``_init_handles()``,
``kernel[grid](*all_args)`` checked against the specialization, and non-zero, consistent
occupancy figures (``n_regs``, ``metadata.shared``, device properties) on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec import config
from tilec.backends.cpu import occupancy
from tilec.errors import UsageError
from tilec.runtime import driver


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):  # fmt: skip
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


def _reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.fixture
def cpu_driver():
    with config.override(backend="cpu"):
        driver.reset_active()
        yield driver.active
        driver.reset_active()


def test_tutorial_02_host_code(cpu_driver):
    props = cpu_driver.utils.get_device_properties(None)  # torch's CPU device has no index
    num_sm, num_regs = props["multiprocessor_count"], props["max_num_regs"]
    size_smem, warp_size = props["max_shared_mem"], props["warpSize"]
    rng = np.random.default_rng()
    x = rng.standard_normal((37, 100)).astype(np.float32)
    y = np.full_like(x, np.nan)
    n_rows, n_cols = x.shape
    block, num_warps, num_stages = triton.next_power_of_2(n_cols), 8, 2
    kernel = softmax_kernel.warmup(y, x, x.shape[1], y.shape[1], n_rows, n_cols,
                                   BLOCK_SIZE=block, num_stages=num_stages,
                                   num_warps=num_warps, grid=(1,))  # fmt: skip
    kernel._init_handles()
    assert np.isnan(y).all()  # warmup compiles only
    occupancy_ = num_regs // (kernel.n_regs * warp_size * num_warps)
    occupancy_ = min(occupancy_, size_smem // kernel.metadata.shared)
    num_programs = min(num_sm * occupancy_, n_rows)
    assert num_programs >= 1
    kernel[(num_programs, 1, 1)](y, x, x.shape[1], y.shape[1], n_rows, n_cols, block,
                                 num_stages)  # fmt: skip
    np.testing.assert_allclose(y, _reference(x), rtol=2e-6, atol=1e-7)


def test_occupancy_figures_are_consistent(cpu_driver):
    x = np.ones((2, 300), np.float32)
    kernel = softmax_kernel.warmup(x, x, 300, 300, 2, 300, BLOCK_SIZE=512, num_stages=1,
                                   grid=(1,))  # fmt: skip
    props = cpu_driver.utils.get_device_properties(0)
    assert kernel.n_regs == kernel.metadata.n_regs > 0
    assert props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * 32) >= 1
    assert 0 < kernel.metadata.shared <= props["max_shared_mem"]


def test_arguments_must_fit_the_specialization():
    x = np.zeros((4, 16), np.float32)
    kernel = softmax_kernel.warmup(x, x, 16, 16, 4, 16, BLOCK_SIZE=16, num_stages=1, grid=(1,))
    with pytest.raises(UsageError, match="BLOCK_SIZE=32"):
        kernel[(1,)](x, x, 16, 16, 4, 16, 32, 1)
    with pytest.raises(UsageError, match="takes 8 arguments"):
        kernel[(1,)](x, x, 16, 16, 4, 16)
    with pytest.raises(UsageError, match="in_ptr"):
        kernel[(1,)](x, x.astype(np.float64), 16, 16, 4, 16, 16, 1)
    with pytest.raises(UsageError, match="n_rows"):
        kernel[(1,)](x, x, 16, 16, 2**40, 16, 16, 1)  # compiled for a 32-bit integer


def test_stack_bytes_of_llvm_allocas():
    llir = (
        "  %a = alloca [256 x float], align 64\n"
        "  %b = alloca [4 x [8 x double]], align 16\n"
        "  %c = alloca <16 x half>\n"
        "  %d = alloca i32, align 4\n"
    )
    assert occupancy.stack_bytes(llir) == 256 * 4 + 4 * 8 * 8 + 16 * 2 + 4
    assert occupancy.stack_bytes("ret void") == occupancy.MIN_STACK_BYTES


@triton.jit
def axpy(out_ptr, x_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, alpha * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_a_float_parameter_takes_an_int_and_wider_integers_fit():
    x = np.random.default_rng().standard_normal(40).astype(np.float32)
    out = np.full_like(x, np.nan)
    kernel = axpy.warmup(out, x, 0.5, 2**40 + 1, BLOCK=64, grid=(1,))  # n: int64
    kernel[(1,)](out, x, 3, 40, 64)  # an int for the fp32 alpha, an int32 value for n
    np.testing.assert_allclose(out, 3.0 * x.astype(np.float64), rtol=1e-6)
