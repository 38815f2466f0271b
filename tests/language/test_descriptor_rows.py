"""Tensor descriptor ``gather`` and ``scatter`` (Triton's TMA gather/scatter of rows): rows at
run-time offsets, out-of-bounds rows and columns padded on reads and skipped on writes, and
Triton's shape rules refused at compile time."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def gather_rows(out, src, idx, y, X, Y, R: tl.constexpr, C: tl.constexpr, PAD: tl.constexpr):
    rows = tl.load(idx + tl.arange(0, R))
    desc = tl.make_tensor_descriptor(src, [X, Y], [Y, 1], [1, C], padding_option=PAD)
    block = desc.gather(rows, y)
    tl.store(out + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :], block)


@jit
def scatter_rows(dst, src, idx, y, X, Y, R: tl.constexpr, C: tl.constexpr):
    rows = tl.load(idx + tl.arange(0, R))
    block = tl.load(src + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    desc = tl.make_tensor_descriptor(dst, [X, Y], [Y, 1], [1, C])
    desc.scatter(block, rows, y)


def _reference_gather(src, idx, y, cols, pad):
    X, Y = src.shape
    out = np.full((len(idx), cols), pad, np.float64)
    for i, r in enumerate(idx):
        for j in range(cols):
            if 0 <= r < X and 0 <= y + j < Y:
                out[i, j] = src[r, y + j]
    return out


@pytest.mark.parametrize("idx_dtype", [np.int16, np.int32])
@pytest.mark.parametrize("pad", ["zero", "nan"])
@pytest.mark.parametrize("y", [0, 24, 40])  # 40 + 16 runs past the last column
def test_gather_reads_rows_and_pads_out_of_bounds(idx_dtype, pad, y):
    X, Y, R, C = 20, 48, 16, 16
    src = random((X, Y), np.float32)
    idx = np.random.default_rng().integers(0, X, R).astype(idx_dtype)
    idx[3], idx[7] = -1, X + 2  # rows outside the array
    out = poisoned((R, C), np.float32)
    gather_rows[(1,)](out, src, idx, y, X, Y, R=R, C=C, PAD=pad)
    ref = _reference_gather(src.astype(np.float64), idx, y, C, 0.0 if pad == "zero" else np.nan)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("y", [0, 8, 40])
def test_scatter_writes_rows_and_skips_out_of_bounds(y):
    X, Y, R, C = 24, 48, 8, 16
    src = random((R, C), np.int32, -1000, 1000)
    idx = np.random.default_rng().permutation(X)[:R].astype(np.int32)
    idx[2] = X + 5  # dropped
    dst = poisoned((X, Y), np.int32)
    ref = dst.astype(np.int64)
    for i, r in enumerate(idx):
        for j in range(C):
            if 0 <= r < X and y + j < Y:
                ref[r, y + j] = src[i, j]
    scatter_rows[(1,)](dst, src, idx, y, X, Y, R=R, C=C)
    np.testing.assert_array_equal(dst, ref)


@jit
def bad_gather(src, R: tl.constexpr, BR: tl.constexpr, C: tl.constexpr, IDX: tl.constexpr):
    desc = tl.make_tensor_descriptor(src, [64, 64], [64, 1], [BR, C])
    desc.gather(tl.arange(0, R).to(IDX), 0)


@pytest.mark.parametrize(
    "R, BR, C, IDX, message",
    [
        (8, 2, 16, tl.int32, "descriptor block must have 1 row"),
        (4, 1, 16, tl.int32, "must have at least 8 rows"),
        (8, 1, 4, tl.int32, "must have at least 8 columns"),
        (8, 1, 16, tl.int64, "x offsets must have dtype int16 or int32"),
    ],
)
def test_gather_shape_rules(R, BR, C, IDX, message):
    with pytest.raises(tilec.CompileError, match=message):
        bad_gather[(1,)](np.zeros(64 * 64, np.float32), R, BR, C, IDX)


@jit
def block_ptr_element_type(src, dst, N, B: tl.constexpr):
    p = tl.make_block_ptr(src, (N,), (1,), (0,), (B,), (0,))
    v = tl.load(p, boundary_check=(0,), padding_option="zero")
    tl.static_assert(p.dtype.element_ty == tl.block_type(tl.float16, [B]))
    tl.store(dst + tl.arange(0, B), v.to(p.dtype.element_ty).to(tl.float32))


def test_block_pointer_dtype_is_pointer_to_block():
    assert isinstance(tl.block_type(tl.int8, [4]), tl.block_type)
    assert tl.block_type(tl.int8, [4]).shape == (4,)
    src = random(16, np.float16)
    dst = poisoned(16, np.float32)
    block_ptr_element_type[(1,)](src, dst, 16, B=16)
    np.testing.assert_array_equal(dst, src.astype(np.float64))
