"""Tutorial 03: grouped-order matmul with tl.dot into an fp32 accumulator, fp16 and fp32 inputs,
a leaky_relu epilogue from a nested @jit function, masks on the K remainder and ragged M/N."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, uniform


def reference(a: np.ndarray, b: np.ndarray, activation: str) -> np.ndarray:
    c = a.astype(np.float64) @ b.astype(np.float64)
    return np.where(c >= 0, c, 0.01 * c) if activation == "leaky_relu" else c


@pytest.mark.parametrize(
    ("m", "n", "k", "activation"),
    [(70, 50, 45, "leaky_relu"), (32, 32, 32, ""), (1, 19, 7, "leaky_relu"), (70, 50, 45, "")],
)
def test_matmul_fp16(m, n, k, activation):
    a, b = uniform((m, k), np.float16, -1, 1), uniform((k, n), np.float16, -1, 1)
    c, whole = guarded((m, n), np.float16)
    kernels.matmul(a, b, c, activation)
    # fp32 accumulation, then one fp16 rounding of the result.
    np.testing.assert_allclose(c, reference(a, b, activation), rtol=2e-3, atol=2e-3)
    assert_guard_untouched(c, whole)


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul_fp32(activation):
    m, n, k = 67, 41, 83
    a, b = uniform((m, k), np.float32, -1, 1), uniform((k, n), np.float32, -1, 1)
    c, whole = guarded((m, n), np.float32)
    kernels.matmul(a, b, c, activation, block=(16, 32, 32))
    np.testing.assert_allclose(c, reference(a, b, activation), rtol=1e-5, atol=1e-5)
    assert_guard_untouched(c, whole)


@pytest.mark.parametrize("group_size_m", [1, 3, 8])
def test_grouped_ordering_covers_every_tile(group_size_m):
    # 5 x 3 output tiles; the group size changes which program computes which tile only.
    m, n, k = 80, 48, 40
    a, b = uniform((m, k), np.float16, -1, 1), uniform((k, n), np.float16, -1, 1)
    c, whole = guarded((m, n), np.float16)
    kernels.matmul(a, b, c, block=(16, 16, 16), group_size_m=group_size_m)
    np.testing.assert_allclose(c, reference(a, b, ""), rtol=2e-3, atol=2e-3)
    assert_guard_untouched(c, whole)


def test_matmul_transposed_operand():
    # B is a transposed view (strides (1, K)): the kernel follows the strides it is given.
    m, n, k = 40, 36, 50
    a = uniform((m, k), np.float32, -1, 1)
    b = uniform((n, k), np.float32, -1, 1).T
    c, whole = guarded((m, n), np.float32)
    kernels.matmul(a, b, c, block=(16, 16, 16))
    np.testing.assert_allclose(c, reference(a, b, ""), rtol=1e-5, atol=1e-5)
    assert_guard_untouched(c, whole)


def test_other_targets_launch_options_are_accepted():
    # On a non-CUDA backend the tutorial picks its HIP configs, whose kwargs carry AMD options.
    m, n, k = 20, 24, 40
    a, b = uniform((m, k), np.float16, -1, 1), uniform((k, n), np.float16, -1, 1)
    c, whole = guarded((m, n), np.float16)
    kernels.matmul_kernel[(2 * 2,)](
        a, b, c, m, n, k, k, 1, n, 1, n + 5, 1,
        BLOCK_SIZE_M=16, BLOCK_SIZE_N=16, BLOCK_SIZE_K=16, GROUP_SIZE_M=1, ACTIVATION="",
        waves_per_eu=2, matrix_instr_nonkdim=16, kpack=2, num_warps=4, num_stages=2,
    )  # fmt: skip
    np.testing.assert_allclose(c, reference(a, b, ""), rtol=2e-3, atol=2e-3)
    assert_guard_untouched(c, whole)
