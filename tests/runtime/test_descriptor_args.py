"""Host TensorDescriptor arguments (Triton's tools.tensor_descriptor) on the CPU backend."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.tools.tensor_descriptor import TensorDescriptor

pytestmark = pytest.mark.usefixtures("private_cache")


@tilec.jit
def scale_blocks(src, dst, factor, BM: tl.constexpr, BN: tl.constexpr):
    om, on = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([om, on], src.load([om, on]) * factor)


def _poisoned(shape):
    return np.full(shape, np.nan, np.float32)


def test_descriptors_in_and_out():
    rng = np.random.default_rng()
    m, n = 20, 24
    x = rng.standard_normal((m, n)).astype(np.float32)
    out = _poisoned((m, n))
    src = TensorDescriptor.from_tensor(x, [16, 8])
    dst = TensorDescriptor.from_tensor(out, [16, 8])
    kernel = scale_blocks[(2, 3)](src, dst, 3.0, BM=16, BN=8)
    np.testing.assert_allclose(out, 3 * x.astype(np.float64), rtol=1e-6)
    assert kernel.name == "scale_blocks"


def test_strided_views_and_new_tensors_reuse_the_kernel():
    rng = np.random.default_rng()
    big = rng.standard_normal((40, 64)).astype(np.float32)
    view = big[4:36, 8:40]  # outer stride 64, not 32
    out = _poisoned((32, 32))
    scale_blocks[(2, 4)](TensorDescriptor.from_tensor(view, [16, 8]),
                         TensorDescriptor.from_tensor(out, [16, 8]), 2.0, BM=16, BN=8)  # fmt: skip
    np.testing.assert_allclose(out, 2 * view.astype(np.float64), rtol=1e-6)
    assert len(scale_blocks._kernels) == 1


def test_torch_tensors_as_descriptor_bases():
    torch = pytest.importorskip("torch")  # wheel tests and bare installs have no torch
    t = torch.randn(32, 32)
    out2 = torch.full((32, 32), float("nan"))
    scale_blocks[(2, 4)](TensorDescriptor.from_tensor(t, [16, 8]),
                         TensorDescriptor.from_tensor(out2, [16, 8]), 0.5, BM=16, BN=8)  # fmt: skip
    np.testing.assert_allclose(out2.numpy(), 0.5 * t.double().numpy(), rtol=1e-6)


def test_a_different_block_shape_compiles_a_new_kernel():
    x = np.ones((16, 16), np.float32)
    out = _poisoned((16, 16))
    scale_blocks[(1, 2)](TensorDescriptor.from_tensor(x, [16, 8]),
                         TensorDescriptor.from_tensor(out, [16, 8]), 1.0, BM=16, BN=8)  # fmt: skip
    before = len(scale_blocks._kernels)  # this configuration's table, with the 16x8 kernel
    out = _poisoned((16, 16))
    scale_blocks[(2, 2)](TensorDescriptor.from_tensor(x, [8, 8]),
                         TensorDescriptor.from_tensor(out, [8, 8]), 1.0, BM=8, BN=8)  # fmt: skip
    np.testing.assert_array_equal(out, x)
    assert len(scale_blocks._kernels) == before + 1


def test_the_wrapper_is_kept_in_memory(private_cache):
    # the wrapper kernel a descriptor launch compiles is source text registered in linecache:
    # no file beside the kernel cache
    kernel = tilec.jit(scale_blocks.fn)
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    out = _poisoned((16, 16))
    kernel[(1, 2)](TensorDescriptor.from_tensor(x, [16, 8]),
                   TensorDescriptor.from_tensor(out, [16, 8]), 2.0, BM=16, BN=8)  # fmt: skip
    np.testing.assert_array_equal(out, 2 * x)
    assert sorted(p.name for p in private_cache.iterdir()) == ["kernels"]
