"""Wrong results the differential fuzzer found, each reduced to a small kernel (the fuzzer's
reproducer, trimmed) and checked against the value Triton gives."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl

torch = pytest.importorskip("torch")  # bf16 buffers


@tilec.jit
def _cumsum_bf16(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)  # bf16
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))


@tilec.jit
def _cumprod_bf16(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumprod(tl.load(x_ptr + offs), axis=0))


def test_cumsum_of_bf16_accumulates_in_fp32() -> None:
    # Triton's cumsum promotes bf16 to fp32 first: 1 + 2**-9 is kept, bf16 would round it to 1
    # (found as (x + 1).to(tl.bfloat16) then tl.cumsum; seed 7, kernel 153)
    x = torch.tensor([1.0, 2.0**-9, 2.0**-9, 2.0**-9], dtype=torch.bfloat16)
    out = np.full(4, np.nan, np.float32)
    _cumsum_bf16[(1,)](x, out, N=4)
    assert out.tolist() == [1.0, 1.0 + 2.0**-9, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-9]


def test_cumprod_of_bf16_multiplies_in_fp32() -> None:
    x = torch.tensor([1.0 + 2.0**-7, 1.0 + 2.0**-7], dtype=torch.bfloat16)
    out = np.full(2, np.nan, np.float32)
    _cumprod_bf16[(1,)](x, out, N=2)
    a = np.float32(1.0 + 2.0**-7)
    assert out.tolist() == [float(a), float(a * a)]  # bf16 would round a * a to 1 + 2**-6
