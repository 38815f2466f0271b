"""On the GPU: a boolean converted to float and read back as bits. The conversion must give the
bits of 0.0 and 1.0 whatever the bits are combined with afterwards (a CUDA-vs-CPU fuzz kernel,
``(1 << s) | bits(float(True))``, read 1 instead of 0x3F800001 on an H200)."""

from __future__ import annotations

import numpy as np
import pytest
from cuda_harness import gpu_available

import tilec
import tilec.language as tl

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


@tilec.jit
def bool_bits_or_shift(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    # through shared memory (a transpose): the flag arrives as a byte, not as a comparison
    flag = tl.reshape(tl.reshape((x & 2) != 0, (BLOCK // 32, 32)).permute(1, 0), (BLOCK,))
    bits = flag.to(tl.float32).to(tl.int32, bitcast=True)
    shift = (x & 1).to(tl.int64)
    tl.store(out_ptr + offs, (flag.to(tl.uint32) << shift) | bits)


@tilec.jit
def small_int_bits(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    bits = (x & 3).to(tl.float32).to(tl.int32, bitcast=True)
    tl.store(out_ptr + offs, (x.to(tl.int64) & 1) | bits)


def _run(kernel, x: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    import torch

    out = torch.full((x.size,), -0x5A5A5A5A5A5A5A5B, dtype=torch.int64, device="cuda")
    kernel[(1,)](torch.from_numpy(x).cuda(), out, BLOCK=x.size)
    torch.cuda.synchronize()
    return out.cpu().numpy()


def _float_bits(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float32).view(np.int32).astype(np.int64)


def test_bool_to_float_bits_combined_with_a_shift() -> None:
    x = np.arange(128, dtype=np.uint8) % 4
    flag = ((x & 2) != 0).reshape(4, 32).T.reshape(128)
    want = (flag.astype(np.int64) << (x & 1)) | _float_bits(flag)
    np.testing.assert_array_equal(_run(bool_bits_or_shift, x), want)


def test_small_int_to_float_bits_combined() -> None:
    x = np.random.default_rng(3).integers(0, 256, 128).astype(np.uint8)
    want = (x.astype(np.int64) & 1) | _float_bits(x & 3)
    np.testing.assert_array_equal(_run(small_int_bits, x), want)
