"""Tutorial 06: flash-attention forward — an online softmax in base 2 over key/value blocks with
tl.dot and tl.exp2, causal (off-band then diagonal stage) and non-causal, fp32 and fp16 inputs,
and sequence lengths that are not a multiple of the block."""

from __future__ import annotations

import numpy as np
import pytest

import tilec

from . import kernels
from .buffers import poisoned, uniform

TOLERANCE = {np.float32: 2e-5, np.float16: 2e-3}


def reference(q, k, v, causal, sm_scale):
    """(out, M): softmax(q k^T * scale) v and each row's log-sum-exp in base 2, in float64."""
    s = q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2) * sm_scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - top)
    total = e.sum(axis=-1, keepdims=True)
    lse2 = (top + np.log(total))[..., 0] / np.log(2)
    return (e / total) @ v.astype(np.float64), lse2


def run(shape, dtype, causal, block, layout=(0, 1, 2, 3)):
    """Random q, k, v of ``shape`` (Z, H, N_CTX, HEAD_DIM), stored in the axis order ``layout``
    and viewed back as ``shape``, so the strides the kernel gets follow the layout."""
    order = np.argsort(layout)
    q, k, v = (
        uniform(tuple(shape[a] for a in layout), dtype, -1, 1).transpose(order) for _ in range(3)
    )
    out, m = poisoned(shape, dtype), poisoned(shape[:3], np.float32)
    sm_scale = 1 / np.sqrt(shape[3])
    kernels.attention(q, k, v, out, m, causal, float(sm_scale), block=block)
    ref_out, ref_m = reference(q, k, v, causal, sm_scale)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(out, ref_out, rtol=tol, atol=tol)
    np.testing.assert_allclose(m, ref_m, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention(causal, dtype):
    run((1, 2, 64, 16), dtype, causal, block=(16, 16))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("shape", [(2, 1, 40, 32), (1, 1, 5, 32)], ids=["ragged", "short"])
def test_attention_ragged_sequence(shape, causal):
    run(shape, np.float32, causal, block=(32, 16))


def test_attention_strided_layout():
    # Stored as (Z, N_CTX, H, HEAD_DIM), as a fused QKV projection leaves it.
    run((2, 3, 48, 16), np.float32, True, block=(16, 16), layout=(0, 2, 1, 3))


@pytest.mark.parametrize(
    ("causal", "dtype"), [(False, np.float32), (True, np.float16)], ids=["full-fp32", "causal-fp16"]
)
def test_attention_through_block_pointers(causal, dtype):
    shape = (2, 2, 45, 16)
    q, k, v = (uniform(shape, dtype, -1, 1) for _ in range(3))
    out = poisoned(shape, dtype)
    kernels.attention_block_ptr(q, k, v, out, causal, 0.25, block=(16, 16))
    ref_out, _ = reference(q, k, v, causal, 0.25)
    tol = TOLERANCE[dtype]
    np.testing.assert_allclose(out, ref_out, rtol=tol, atol=tol)


def test_block_sizes_are_checked_at_compile_time():
    q = uniform((1, 1, 32, 16), np.float32)
    out, m = poisoned(q.shape, np.float32), poisoned(q.shape[:3], np.float32)
    with pytest.raises(tilec.CompileError, match=r"kernels\.py:\d+:\d+: static_assert failed"):
        kernels.attention(q, q, q, out, m, True, 0.25, block=(16, 32))
    assert np.isnan(out).all()
