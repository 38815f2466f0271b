"""Every dtype through load, arithmetic, cast and store (bf16 through torch), and constexpr
globals."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned, random

BLOCK_G = tl.constexpr(32)
SCALE_G = 3


@jit
def scale_shift(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x * 2 + 1).to(x.dtype), mask=mask)


@pytest.mark.parametrize(
    "dtype",
    [
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    ],
)
def test_every_numpy_dtype(dtype):
    n = 77
    x = random(n, dtype, 0, 50)
    out = poisoned(n, dtype)
    scale_shift[(3,)](x, out, n, BLOCK=32)
    np.testing.assert_array_equal(out, (x.astype(np.float64) * 2 + 1).astype(dtype))


def test_bfloat16_through_torch():
    torch = pytest.importorskip("torch")
    x = torch.rand(70, dtype=torch.bfloat16)
    out = torch.full((70,), float("nan"), dtype=torch.bfloat16)
    scale_shift[(3,)](x, out, 70, BLOCK=32)
    assert torch.equal(out, (x.double() * 2 + 1).to(torch.bfloat16))


@jit
def bool_ops(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=False)
    b = tl.load(b_ptr + offs, mask=mask, other=False)
    tl.store(out_ptr + offs, (a & ~b) | (b ^ a).to(tl.int1), mask=mask)


def test_bool_tensors():
    a = np.random.default_rng().integers(0, 2, 40).astype(bool)
    b = np.random.default_rng().integers(0, 2, 40).astype(bool)
    out = np.zeros(40, bool)
    bool_ops[(1,)](a, b, out, 40, BLOCK=64)
    np.testing.assert_array_equal(out, (a & ~b) | (a ^ b))


@jit
def uses_globals(out_ptr):
    offs = tl.arange(0, BLOCK_G)
    tl.store(out_ptr + offs, offs * SCALE_G)


def test_constexpr_globals():
    out = poisoned(32, np.int32)
    uses_globals[(1,)](out)
    np.testing.assert_array_equal(out, np.arange(32) * 3)
