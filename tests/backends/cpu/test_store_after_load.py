"""A store never changes what the loads feeding its own value read: as in Triton, a tile's loads
all happen before its store writes anything, also when the store overwrites the loaded memory at
other elements (the CPU backend evaluates values inside the store's loop)."""

from __future__ import annotations

import numpy as np

import tilec
import tilec.language as tl


@tilec.jit
def _add_first_column(Z, N: tl.constexpr, M: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    z = tl.load(Z + rows[:, None] * N + cols[None, :])
    z += tl.load(Z + rows * N)[:, None]  # column 0, read before the store overwrites it
    tl.store(Z + rows[:, None] * N + cols[None, :], z)


@tilec.jit
def _reverse_in_place(X, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(X + offs, tl.load(X + N - 1 - offs))


@tilec.jit
def _shift_right_masked(X, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs - 1, mask=offs >= 1, other=0.0)
    tl.store(X + offs, x * 2, mask=x >= 0)


@tilec.jit
def _atomic_from_same_buffer(X, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.atomic_add(X + offs, tl.load(X + N - 1 - offs))


@tilec.jit
def _in_place_scale(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(X + offs, tl.load(X + offs) * 3 + tl.load(Y + offs))


def test_broadcast_column_is_read_before_the_row_is_written() -> None:
    z = np.arange(16, dtype=np.float32).reshape(4, 4)
    want = z + z[:, :1]
    _add_first_column[(1,)](z, N=4, M=4)
    np.testing.assert_array_equal(z, want)


def test_reversing_in_place_reads_the_old_values() -> None:
    x = np.arange(8, dtype=np.int32)
    _reverse_in_place[(1,)](x, N=8)
    assert x.tolist() == list(range(7, -1, -1))


def test_shifted_load_and_a_mask_from_loaded_values() -> None:
    x = np.array([1, -2, 3, 4, -5, 6, 7, 8], dtype=np.float32)
    shifted = np.append(0.0, x[:-1]).astype(np.float32)
    want = np.where(shifted >= 0, shifted * 2, x)
    _shift_right_masked[(1,)](x, N=8)
    np.testing.assert_array_equal(x, want)


def test_atomic_value_is_read_before_the_atomics_run() -> None:
    x = np.arange(8, dtype=np.int32)
    want = x + x[::-1]
    _atomic_from_same_buffer[(1,)](x, N=8)
    np.testing.assert_array_equal(x, want)


def test_same_element_in_place_update_and_another_argument() -> None:
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, dtype=np.float32)
    _in_place_scale[(1,)](x, y, N=64)
    np.testing.assert_array_equal(x, np.arange(64, dtype=np.float32) * 3 + 1)
