"""Reductions of one tile along its innermost axis (Inductor's ``x.sum(-1) + x.amax(-1)``) run in
one pass over it, each in its own accumulator; at most one float min/max shares a pass (LLVM 22
miscompiles loops with several). Results equal numpy's, NaNs and masked rows included."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends.cpu.program import build_module
from tilec.runtime import compiler, specialize

TRIPLE = "x86_64-unknown-linux-gnu"


@tilec.jit
def _maximum(a, b):
    mask = a > b
    mask |= a != a
    return tl.where(mask, a, b)


@tilec.jit
def sum_max_min(x_ptr, s_ptr, mx_ptr, mn_ptr, n_rows, N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    m = rows < n_rows
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :], mask=m, other=0.0)
    s = tl.sum(x, 1)[:, None]
    mx = tl.reduce(x, 1, _maximum)[:, None]
    mn = tl.min(x, 1)[:, None]  # a second float min/max: a pass of its own
    tl.store(s_ptr + rows, s, mask=m)
    tl.store(mx_ptr + rows, mx, mask=m)
    tl.store(mn_ptr + rows, mn, mask=m)


@tilec.jit
def sum_max_min_rows(x_ptr, s_ptr, mx_ptr, mn_ptr, N: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    x = tl.load(x_ptr + rows[:, None] * N + tl.arange(0, N)[None, :])
    s, mx, mn = tl.sum(x, 1), tl.reduce(x, 1, _maximum), tl.min(x, 1)
    tl.store(s_ptr + rows, s)
    tl.store(mx_ptr + rows, mx)
    tl.store(mn_ptr + rows, mn)


@tilec.jit
def int_stats(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.program_id(0) * N + tl.arange(0, N))
    base = out_ptr + tl.program_id(0) * 4
    s, mx, mn, xs = tl.sum(x, 0), tl.max(x, 0), tl.min(x, 0), tl.xor_sum(x, 0)
    tl.store(base, s)
    tl.store(base + 1, mx)
    tl.store(base + 2, mn)
    tl.store(base + 3, xs)


def _passes(kernel, *args) -> int:
    """Loop nests over a 2-D tile's rows in the kernel's program (the stores are 1-D)."""
    cx = [p.constexpr for p in kernel.params]
    _, specs = specialize.specialize(kernel.arg_names, list(args), cx)
    llmod, _, _ = build_module(compiler.build_ir(kernel, specs).functions[0], TRIPLE)
    text = str(llmod.get_global("tilec.program"))
    return len(re.findall(r"^d0\.head(?:\.\d+)?:", text, re.M))


def test_one_pass_per_float_minmax() -> None:
    x, o = np.zeros((8, 256), np.float32), np.zeros(8, np.float32)
    # sum + max share a pass; the min is the pass's second float min/max and runs alone
    assert _passes(sum_max_min_rows, x, o, o, o, 256, 8) == 2


def test_int_reductions_share_one_pass() -> None:
    x, o = np.zeros((2, 256), np.int32), np.zeros(8, np.int32)
    cx = [p.constexpr for p in int_stats.params]
    _, specs = specialize.specialize(int_stats.arg_names, [x, o, 256], cx)
    llmod, _, _ = build_module(compiler.build_ir(int_stats, specs).functions[0], TRIPLE)
    text = str(llmod.get_global("tilec.program"))
    assert len(re.findall(r"^e\.head(?:\.\d+)?:", text, re.M)) == 1  # 1-D: one loop


@pytest.mark.parametrize("n_rows", [32, 29])
def test_float_results(n_rows: int) -> None:
    rng = np.random.default_rng(n_rows)
    x = rng.standard_normal((32, 256)).astype(np.float32)
    x[2, 17] = np.nan
    x[5, :] = -np.inf
    s, mx, mn = (np.full(32, 7.0, np.float32) for _ in range(3))
    sum_max_min[(4,)](x, s, mx, mn, n_rows, N=256, ROWS=8)
    rows = slice(0, n_rows)
    xd = x[rows].astype(np.float64)
    np.testing.assert_allclose(s[rows], xd.sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(mx[rows], x[rows].max(1))  # NaN-propagating
    np.testing.assert_array_equal(mn[rows], np.nanmin(x[rows], 1))  # tl.min skips NaN
    assert (s[n_rows:] == 7.0).all() and (mx[n_rows:] == 7.0).all()  # masked rows untouched


def test_int_results() -> None:
    x = np.random.default_rng(3).integers(-1000, 1000, (16, 256), dtype=np.int32)
    out = np.zeros((16, 4), np.int32)
    int_stats[(16,)](x, out, N=256)
    np.testing.assert_array_equal(out[:, 0], x.sum(1))
    np.testing.assert_array_equal(out[:, 1], x.max(1))
    np.testing.assert_array_equal(out[:, 2], x.min(1))
    np.testing.assert_array_equal(out[:, 3], np.bitwise_xor.reduce(x, 1))
