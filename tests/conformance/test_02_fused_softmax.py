"""Tutorial 02: row-wise fused softmax, BLOCK = next_power_of_2(n_cols), a persistent loop with
fewer programs than rows, strided rows, and columns past n_cols left alone."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as triton

from . import kernels
from .buffers import assert_guard_untouched, guarded, padded_input, poisoned, uniform


def reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize(
    ("n_rows", "n_cols", "programs"),
    [(1, 1, 4), (37, 100, 4), (9, 128, 3), (64, 33, 64), (5, 300, 2)],
)
def test_softmax_rows(n_rows, n_cols, programs):
    x = padded_input(uniform((n_rows, n_cols), np.float32, -5, 5))
    out, whole = guarded((n_rows, n_cols), np.float32, pad=7)
    kernels.softmax(x, out, num_programs=programs)
    np.testing.assert_allclose(out, reference(x), rtol=2e-6, atol=1e-7)
    assert_guard_untouched(out, whole)


def test_softmax_large_magnitudes():
    # exp() of the raw inputs would overflow: only the max subtraction keeps this finite.
    x = uniform((6, 50), np.float32, -300, 300)
    x[:, 7] = 1000.0
    out, whole = guarded((6, 50), np.float32)
    kernels.softmax(x, out, num_programs=4, num_stages=3)
    np.testing.assert_allclose(out, reference(x), rtol=2e-6, atol=1e-30)
    assert_guard_untouched(out, whole)


def test_precompiled_kernel_sized_by_occupancy():
    # The tutorial's host path: warm the kernel up, read its registers and shared memory, size
    # the persistent grid from the device's properties, launch the compiled object directly.
    n_rows, n_cols = 23, 77
    x, out = uniform((n_rows, n_cols), np.float32, -5, 5), poisoned((n_rows, n_cols), np.float32)
    block, num_warps, num_stages = triton.next_power_of_2(n_cols), 4, 2
    props = triton.runtime.driver.active.utils.get_device_properties(0)
    kernel = kernels.softmax_kernel.warmup(
        out, x, n_cols, n_cols, n_rows, n_cols, BLOCK_SIZE=block, num_stages=num_stages,
        num_warps=num_warps, grid=(1,),
    )  # fmt: skip
    kernel._init_handles()
    occupancy = props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * num_warps)
    if kernel.metadata.shared:
        occupancy = min(occupancy, props["max_shared_mem"] // kernel.metadata.shared)
    programs = min(max(1, props["multiprocessor_count"] * occupancy), n_rows)
    kernel[(programs, 1, 1)](out, x, n_cols, n_cols, n_rows, n_cols, block, num_stages)
    np.testing.assert_allclose(out, reference(x), rtol=2e-6, atol=1e-7)
