"""Max and min spelled as compare-and-select (Inductor's ``triton_helpers.maximum``/``minimum``:
``where(a > b or a != a, a, b)``) reduce like ``tl.max``/``tl.min`` with NaN propagation: one
SIMD accumulator per row instead of the lane-by-lane combine. Results equal numpy's NaN-propagating
max/min, with NaNs, infinities and signed zeros in the rows."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends.cpu.rules.reduce import Combine, simple_combine
from tilec.ir import ops as O
from tilec.ir.core import Op
from tilec.runtime import compiler, specialize


@tilec.jit
def _maximum(a, b):
    mask = a > b
    mask |= a != a
    return tl.where(mask, a, b)


@tilec.jit
def _minimum(a, b):
    mask = a < b
    mask |= a != a
    return tl.where(mask, a, b)


@tilec.jit
def _int_maximum(a, b):
    return tl.where(a > b, a, b)


@tilec.jit
def _no_nan_check(a, b):
    return tl.where(a > b, a, b)  # on floats: a NaN in b wins, one in a loses (not max)


@tilec.jit
def _picks_other(a, b):
    mask = a > b
    mask |= a != a
    return tl.where(mask, b, a)


@tilec.jit
def rows_max_min(x_ptr, mx_ptr, mn_ptr, N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    tl.store(mx_ptr + rows, tl.reduce(x, 1, _maximum)[:, None])
    tl.store(mn_ptr + rows, tl.reduce(x, 1, _minimum)[:, None])


@tilec.jit
def rows_int_max(x_ptr, mx_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(mx_ptr + row, tl.reduce(x, 0, _int_maximum))


@tilec.jit
def rows_other(x_ptr, a_ptr, b_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    tl.store(a_ptr + row, tl.reduce(x, 0, _no_nan_check))
    tl.store(b_ptr + row, tl.reduce(x, 0, _picks_other))


def _combines(kernel, *args) -> list[Combine | None]:
    """What the CPU lowering makes of each reduction's combine region in ``kernel``."""
    cx = [p.constexpr for p in kernel.params]
    _, specs = specialize.specialize(kernel.arg_names, list(args), cx)
    ops: list[Op] = list(compiler.build_ir(kernel, specs).functions[0].walk())
    return [simple_combine(op) for op in ops if isinstance(op, O.ReduceOp)]


@pytest.mark.parametrize("n", [1024, 64])
def test_float_max_min_propagate_nan(n: int) -> None:
    rng = np.random.default_rng(n)
    x = rng.standard_normal((32, n)).astype(np.float32)
    x[3, 5] = np.nan  # one NaN: the row's max and min are NaN
    x[4, :] = np.nan
    x[5, 7] = np.inf
    x[6, 9] = -np.inf
    x[7, :] = 0.0
    x[7, ::2] = -0.0  # a tie of zeros: either zero
    mx, mn = np.full(32, 7.0, np.float32), np.full(32, 7.0, np.float32)
    rows_max_min[(4,)](x, mx, mn, N=n, ROWS=8)
    np.testing.assert_array_equal(mx, x.max(axis=1))  # numpy's max propagates NaN
    np.testing.assert_array_equal(mn, x.min(axis=1))


def test_int_max() -> None:
    x = np.random.default_rng(1).integers(-(2**31), 2**31 - 1, (16, 256), dtype=np.int32)
    mx = np.zeros(16, np.int32)
    rows_int_max[(16,)](x, mx, N=256)
    np.testing.assert_array_equal(mx, x.max(axis=1))


def test_recognized_combines() -> None:
    x, out = np.zeros((8, 1024), np.float32), np.zeros(8, np.float32)
    assert _combines(rows_max_min, x, out, out, 1024, 8) == [
        Combine(O.BinaryKind.MAX, True),
        Combine(O.BinaryKind.MIN, True),
    ]
    xi, outi = np.zeros((16, 256), np.int32), np.zeros(16, np.int32)
    assert _combines(rows_int_max, xi, outi, 256) == [Combine(O.BinaryKind.MAX, False)]


def test_other_select_combines_are_not_max() -> None:
    """``where(a > b, a, b)`` on floats (a NaN in b wins, one in a loses) and
    ``where(a > b or a != a, b, a)`` run the combine region as written."""
    x, out = np.zeros((4, 64), np.float32), np.zeros(4, np.float32)
    assert _combines(rows_other, x, out, out, 64) == [None, None]
    x = np.random.default_rng(2).standard_normal((4, 64)).astype(np.float32)
    a, b = np.zeros(4, np.float32), np.zeros(4, np.float32)
    rows_other[(4,)](x, a, b, N=64)
    np.testing.assert_array_equal(a, x.max(axis=1))  # without NaNs: max and min
    np.testing.assert_array_equal(b, x.min(axis=1))
