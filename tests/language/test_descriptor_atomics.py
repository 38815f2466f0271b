"""Tensor descriptor atomic reductions (``desc.atomic_add/min/max/and/or/xor(offsets, value)``,
Triton's TMA reduce): every in-bounds element of the block combined with its value, the
out-of-bounds part left alone, and the dtypes Triton refuses without a TMA unit refused."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def reduce_blocks(out, src, M, N, BM: tl.constexpr, BN: tl.constexpr, KIND: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    rows = pm + tl.arange(0, BM)[:, None]
    cols = pn + tl.arange(0, BN)[None, :]
    val = tl.load(src + rows * BN * 2 + cols)  # src is a full (2 BM, 2 BN) array
    desc = tl.make_tensor_descriptor(out, [M, N], [N, 1], [BM, BN])
    if KIND == "add":
        desc.atomic_add([pm, pn], val)
    elif KIND == "min":
        desc.atomic_min([pm, pn], val)
    elif KIND == "max":
        desc.atomic_max([pm, pn], val)
    elif KIND == "and":
        desc.atomic_and([pm, pn], val)
    elif KIND == "or":
        desc.atomic_or([pm, pn], val)
    else:
        desc.atomic_xor([pm, pn], val)


_NUMPY = {
    "add": np.add,
    "min": np.minimum,
    "max": np.maximum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


@pytest.mark.parametrize(
    "kind, dtype",
    [
        ("add", np.float32),
        ("add", np.float16),
        ("add", np.int32),
        ("add", np.uint32),
        ("min", np.int32),
        ("min", np.uint32),
        ("max", np.int64),
        ("max", np.uint64),
        ("and", np.int32),
        ("or", np.uint64),
        ("xor", np.int64),
    ],
)
def test_block_combined_in_bounds_only(kind, dtype):
    BM, BN = 4, 16
    M, N = 2 * BM - 1, 2 * BN - 3  # the last row and columns of the grid's blocks are outside
    lo = 0 if np.dtype(dtype).kind == "u" else -99
    src = random((2 * BM, 2 * BN), dtype, lo, 99)
    out = random((M + 1, N), dtype, lo, 99)  # the combined values are read first
    out[M] = poisoned((N,), dtype)  # a row past the descriptor's shape: never touched
    before = out.copy()
    reduce_blocks[(2, 2)](out, src, M, N, BM=BM, BN=BN, KIND=kind)
    ref = before.copy()
    if np.dtype(dtype).kind == "f":  # one rounding of the exact sum, as the kernel does
        ref[:M] = (before[:M].astype(np.float64) + src[:M, :N].astype(np.float64)).astype(dtype)
    else:
        ref[:M] = _NUMPY[kind](before[:M], src[:M, :N])
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize(
    "kind, dtype",
    [("min", np.float16), ("max", np.float32), ("add", np.int64), ("xor", np.int16)],
)
def test_dtypes_without_a_tma_unit_are_refused(kind, dtype):
    out = np.zeros((8, 32), dtype)
    src = np.zeros((8, 32), dtype)
    with pytest.raises(tilec.CompileError, match=f"descriptor atomic_{kind} does not support"):
        reduce_blocks[(1, 1)](out, src, 8, 32, BM=4, BN=16, KIND=kind)
