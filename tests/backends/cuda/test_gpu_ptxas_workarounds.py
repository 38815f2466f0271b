"""On the GPU, kernels whose PTX ptxas compiled wrongly before tilec rewrote it
(nvptx._ptxas_safe; found by the CUDA-vs-CPU fuzzer):
- a boolean converted to float and read back as bits, or-ed into an integer
  (``(1 << s) | bits(float(True))`` read 1 instead of 0x3F800001 on an H200);
- an int64 holding a double's bits stored through a uint8 pointer (the low byte), which
  read 255 in the fuzz kernel (seed 71 #7981; this reduced form stored the right bytes with the
  old PTX too, so it checks the semantics; the PTX test pins the rewrite);
- (LLVM's NVPTX backend) a 64-bit shift by an amount whose low 32 bits are in range, shifted by
  those bits alone (``3 >> 0x3FF0000000000000`` gave 3);
- a boolean made -1.0 or -0.0 and read as bits, xor-scanned (seed 109 #9402: ``selp.f32`` of the
  immediates -1.0 and -0.0 gave +0.0's bits);
- an int64 abs of a sign-extended INT32_MIN converted to fp16 (seed 109 #9100: ptxas took
  ``abs.s32`` as non-negative and converted 0x80000000 as -2**31, giving -inf)."""

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
def bool_bits_or_shift(in0, out, n0, n_out):
    """The fuzz kernel as found (seed 101 #3086, shrunk): a bool that went through a layout
    change (shared memory) becomes 1.0, whose bits are or-ed into an int64."""
    pid = tl.program_id(0)
    o0 = pid * 1
    x0 = tl.load(in0 + o0, mask=o0 < n0)
    v1 = tl.broadcast_to(tl.broadcast_to(tl.arange(0, 2)[:, None, None], (2, 2, 32)), (2, 2, 32))
    v2 = v1 == tl.broadcast_to(tl.arange(0, 2)[:, None, None], (2, 2, 32))
    v3 = tl.reshape(v2, (128,))
    v13 = (((x0.to(tl.uint16) & 1) < 1).to(tl.int64)) & 63
    v14 = v3.to(tl.uint32) << v13
    v18 = tl.reshape(tl.floor(v3.to(tl.float32)), (128,)).to(tl.int32, bitcast=True)
    oo = pid * 128 + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(out + oo, tl.reshape(v14 | v18, (16, 8)))


@tilec.jit
def double_bits_to_bytes(x_ptr, y_ptr, flag_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    keep = tl.load(flag_ptr + offs) >= 0
    value = tl.where(keep, x.to(tl.float64), tl.load(y_ptr + offs) / 3.0)
    tl.store(out_ptr + offs, value.to(tl.int64, bitcast=True))  # truncated to the low byte


@tilec.jit
def shift_by_double_bits(out_ptr):
    """Seed 103 #1266: a constant shifted by a 64-bit amount whose low half is 0."""
    pid = tl.program_id(0)
    amount = tl.floor(pid.to(tl.float64)).to(tl.uint64, bitcast=True)
    tl.store(out_ptr + pid, 3 >> amount)


@tilec.jit
def _xor(a, b):
    return a ^ b


@tilec.jit
def negated_bool_bits(x_ptr, out_ptr):
    """Seed 109 #9402, shrunk: -float(row < x) as bits, xor-scanned over the two rows."""
    x = tl.load(x_ptr + tl.arange(0, 2)[:, None] * 16 + tl.arange(0, 16)[None, :])
    v = -((tl.broadcast_to(tl.arange(0, 2)[:, None], (2, 16)) < x).to(tl.float32))
    bits = tl.associative_scan(v.to(tl.int32, bitcast=True), 0, _xor)
    tl.store(out_ptr + tl.arange(0, 2)[:, None] * 16 + tl.arange(0, 16)[None, :], bits)


@tilec.jit
def abs_of_widened_int_min(x_ptr, flag_ptr, out_ptr, BLOCK: tl.constexpr):
    """Seed 109 #9100, shrunk: abs of an int32 widened to int64 (through uint64), as fp16."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    wide = tl.where(tl.load(flag_ptr + offs) != 0, tl.full((BLOCK,), 3, tl.uint64), x)
    tl.store(out_ptr + offs, tl.abs(wide.to(tl.int64, bitcast=True)).to(tl.float16))


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
    import torch

    x = np.array([1106996086, 3222640143], np.uint32).view(np.float32)  # 31.4..., -2.3...
    out = torch.full((256,), -0x5A5A5A5A5A5A5A5B, dtype=torch.int64, device="cuda")
    bool_bits_or_shift[(2,)](torch.from_numpy(x).cuda(), out, 2, 256)
    torch.cuda.synchronize()
    shift = (np.clip(x, 0, 65535).astype(np.uint16) & 1) == 0  # 31 is odd; -2.3 saturates to 0
    want = np.repeat((1 << shift.astype(np.int64)) | 0x3F800000, 128)
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_small_int_to_float_bits_combined() -> None:
    x = np.random.default_rng(3).integers(0, 256, 128).astype(np.uint8)
    want = (x.astype(np.int64) & 1) | _float_bits(x & 3)
    np.testing.assert_array_equal(_run(small_int_bits, x), want)


def test_double_bits_stored_as_bytes() -> None:
    import torch

    rng = np.random.default_rng(5)
    x = rng.integers(0, 2**63, 256, dtype=np.uint64)
    flag = rng.integers(-128, 128, 256).astype(np.int8)
    y = rng.standard_normal(256) * 1e6
    want = np.where(flag >= 0, x.astype(np.float64), y / 3.0).view(np.int64).astype(np.uint8)
    out = torch.full((256,), 0xA5, dtype=torch.uint8, device="cuda")
    dev = [torch.from_numpy(a).cuda() for a in (x.view(np.int64), y, flag)]
    double_bits_to_bytes[(1,)](*dev, out, BLOCK=256)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_shift_by_an_amount_past_32_bits() -> None:
    import torch

    out = torch.full((4,), 77, dtype=torch.int64, device="cuda")
    shift_by_double_bits[(4,)](out)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), [3, 0, 0, 0])  # amounts 0, 2**62 ...


def test_negated_boolean_bits_keep_the_sign_of_zero() -> None:
    import torch

    x = np.random.default_rng(9).standard_normal(32).astype(np.float32) + 0.5
    out = torch.full((32,), 0x5A5A5A5A, dtype=torch.int32, device="cuda")
    negated_bool_bits[(1,)](torch.from_numpy(x).cuda(), out)
    torch.cuda.synchronize()
    rows = np.arange(2)[:, None] < x.reshape(2, 16)
    bits = np.where(rows, np.int32(-0x40800000), np.int32(-0x80000000))  # -1.0, -0.0
    want = np.bitwise_xor.accumulate(bits, axis=0).reshape(-1)
    np.testing.assert_array_equal(out.cpu().numpy(), want)


def test_abs_of_a_widened_int_min() -> None:
    import torch

    x = np.array([-(2**31), 5, -7, 2**31 - 1, -(2**31), 0, -1, 65504], np.int32)
    flag = np.array([0, 0, 1, 0, 0, 1, 0, 0], np.int8)
    out = torch.zeros(8, dtype=torch.float16, device="cuda")
    dev = [torch.from_numpy(a).cuda() for a in (x, flag)]
    abs_of_widened_int_min[(1,)](*dev, out, BLOCK=8)
    torch.cuda.synchronize()
    want = np.where(flag != 0, 3, np.abs(x.astype(np.int64))).astype(np.float16)
    np.testing.assert_array_equal(out.cpu().numpy(), want)
