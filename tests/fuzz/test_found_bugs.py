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


@tilec.jit
def _store_wider_value(out_ptr):
    offs = tl.arange(0, 2)[None, :]  # pointer tile (1, 2)
    v = tl.arange(0, 2)[:, None] * 10 + offs  # value tile (2, 2)
    tl.store(out_ptr + offs, v)


@tilec.jit
def _atomic_wider_value(x_ptr, out_ptr):
    offs = tl.arange(0, 2)[None, :]
    v = tl.load(x_ptr + tl.arange(0, 4)[:, None]) + offs  # (4, 2)
    tl.atomic_add(out_ptr + offs, v)


@tilec.jit
def _store_wider_mask(out_ptr):
    offs = tl.arange(0, 2)[None, :]
    tl.store(out_ptr + offs, offs, mask=tl.arange(0, 2)[:, None] < 1)


@tilec.jit
def _store_value_broadcasts(out_ptr):
    offs = tl.arange(0, 2)[:, None] * 2 + tl.arange(0, 2)[None, :]  # (2, 2)
    tl.store(out_ptr + offs, tl.arange(0, 2)[None, :] + 5, mask=tl.arange(0, 2)[None, :] < 2)


@tilec.jit
def _load_other_widens_pointers(x_ptr, out_ptr):
    p = x_ptr + tl.arange(0, 2)[None, :]  # (1, 2)
    v = tl.load(p, mask=tl.arange(0, 2)[None, :] < 1, other=tl.zeros((4, 2), tl.int32) - 1)
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :], v)


@pytest.mark.parametrize(
    "kernel, args",
    [
        (_store_wider_value, lambda: (np.zeros(2, np.int32),)),
        (_atomic_wider_value, lambda: (np.ones(4, np.int32), np.zeros(2, np.int32))),
        (_store_wider_mask, lambda: (np.zeros(2, np.int32),)),
    ],
)
def test_store_never_widens_the_pointers(kernel, args) -> None:
    # Triton broadcasts only the value and mask to the pointer shape; widening the pointers
    # instead wrote several values to one address (tilec stored [10, 11] / added [4, 8])
    with pytest.raises(tilec.errors.TileTypeError, match="broadcast") as info:
        kernel[(1,)](*args())
    assert "test_found_bugs.py:" in str(info.value) and "^" in str(info.value)


def test_store_value_and_mask_still_broadcast_to_the_pointers() -> None:
    out = np.full(4, -1, np.int32)
    _store_value_broadcasts[(1,)](out)
    assert out.tolist() == [5, 6, 5, 6]


def test_load_other_still_widens_the_pointers() -> None:
    # Triton's load broadcasts the pointers (and mask) to a wider ``other``
    out = np.full(8, 7, np.int32)
    _load_other_widens_pointers[(1,)](np.array([4, 9], np.int32), out)
    assert out.tolist() == [4, -1] * 4
