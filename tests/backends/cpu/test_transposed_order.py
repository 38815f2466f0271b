"""Tiles whose first axis is the unit-stride one in memory: the CPU backend runs that axis
innermost (loads, stores, carried accumulators laid out to match). Results against numpy in
float64, with outputs poisoned, at sizes that leave both axes partly masked."""

from __future__ import annotations

import numpy as np
import pytest
from tests.support.build import build

import tilec
import tilec.language as tl
from tilec.backends.cpu.program import build_module
from tilec.backends.llvm import isolation, machine

RNG = np.random.default_rng()


def _sigmoid_x(x: np.ndarray) -> np.ndarray:
    xd = x.astype(np.float64)
    return xd / (1 + np.exp(-xd))


@tilec.jit
def looped_column_sums(
    x_ptr, out_ptr, stride, n_cols, n_rows, BX: tl.constexpr, BR: tl.constexpr, AXIS: tl.constexpr
):
    # Inductor's dynamic-shape column sum: x index down the tile, rows across, a run-time stride
    cols = tl.program_id(0) * BX + tl.arange(0, BX)[:, None]
    col_ok = cols < n_cols
    rows = tl.arange(0, BR)[None, :]
    acc = tl.full([BX, BR], 0, tl.float32)
    for start in tl.range(0, n_rows, BR):
        r = start + rows
        ok = (r < n_rows) & col_ok
        x = tl.load(x_ptr + (cols + stride * r), ok, other=0.0)
        acc = tl.where(ok, acc + x * tl.sigmoid(x), acc)
    if AXIS == 1:
        tl.store(out_ptr + cols, tl.sum(acc, 1)[:, None], col_ok)
    else:
        # the accumulator reduced over its other axis: per program, sums of each column of acc
        lane = tl.arange(0, BR)[None, :]
        tl.store(out_ptr + tl.program_id(0) * BR + lane, tl.sum(acc, 0)[None, :])


@pytest.mark.parametrize("bx,br", [(64, 4), (16, 8), (32, 32)])
def test_looped_column_sums_over_the_strided_axis(bx: int, br: int) -> None:
    x = RNG.standard_normal((77, 45)).astype(np.float32)
    out = np.full(45, np.nan, np.float32)
    looped_column_sums[(tilec.cdiv(45, bx),)](x, out, 45, 45, 77, BX=bx, BR=br, AXIS=1)
    np.testing.assert_allclose(out, _sigmoid_x(x).sum(0), rtol=1e-5, atol=1e-4)


def test_looped_column_sums_over_the_contiguous_axis() -> None:
    bx, br, rows, cols = 16, 8, 37, 45
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    grid = tilec.cdiv(cols, bx)
    out = np.full(grid * br, np.nan, np.float32)
    looped_column_sums[(grid,)](x, out, cols, cols, rows, BX=bx, BR=br, AXIS=0)
    f = _sigmoid_x(x)
    want = np.zeros((grid, br))
    for p in range(grid):
        for j in range(br):
            want[p, j] = f[j::br, p * bx : (p + 1) * bx].sum()
    np.testing.assert_allclose(out, want.ravel(), rtol=1e-5, atol=1e-4)


@tilec.jit
def tile_reductions(
    x_ptr, sum1_ptr, max1_ptr, sum0_ptr, stride, n_cols, n_rows,
    BX: tl.constexpr, BR: tl.constexpr,
):  # fmt: skip
    # one [BX, BR] tile, unit stride down axis 0, reduced over either axis without a loop
    cols = tl.program_id(0) * BX + tl.arange(0, BX)[:, None]
    rows = tl.arange(0, BR)[None, :]
    ok = (cols < n_cols) & (rows < n_rows)
    ptrs = x_ptr + cols + rows * stride
    # each reduction reads its own load (a value used once stays a lazy load in its nest), and
    # the last one a value used twice (computed into a buffer first)
    y = tl.load(ptrs, ok, other=0.0) * 2.0 + 1.0
    tl.store(sum1_ptr + cols, tl.sum(tl.where(ok, y, 0.0), 1)[:, None], cols < n_cols)
    y = tl.load(ptrs, ok, other=0.0) * 2.0 + 1.0
    tl.store(max1_ptr + cols, tl.max(tl.where(ok, y, float("-inf")), 1)[:, None], cols < n_cols)
    y = tl.load(ptrs, ok, other=0.0) * 2.0 + 1.0
    lane = tl.arange(0, BR)
    tl.store(
        sum0_ptr + tl.program_id(0) * BR + lane, tl.sum(tl.where(ok, y, 0.0), 0), lane < n_rows
    )
    y = tl.sigmoid(tl.load(ptrs, ok, other=0.0))
    tl.store(
        sum0_ptr + tl.program_id(0) * BR + lane + tl.num_programs(0) * BR,
        tl.sum(y, 0) + tl.max(y, 0),
        lane < n_rows,
    )


def test_reductions_over_either_axis() -> None:
    bx, br, rows, cols = 32, 16, 11, 70
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    grid = tilec.cdiv(cols, bx)
    sum1, max1 = np.full(cols, np.nan, np.float32), np.full(cols, np.nan, np.float32)
    sum0 = np.full(2 * grid * br, np.nan, np.float32)
    tile_reductions[(grid,)](x, sum1, max1, sum0, cols, cols, rows, BX=bx, BR=br)
    y = x.astype(np.float64) * 2 + 1
    np.testing.assert_allclose(sum1, y.sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(max1, y.max(0), rtol=1e-6)
    padded = np.zeros((rows, grid * bx))  # masked-off lanes load 0
    padded[:, :cols] = x
    sig = 1 / (1 + np.exp(-padded))
    got = sum0.reshape(2, grid, br)
    for p in range(grid):
        block = slice(p * bx, (p + 1) * bx)
        want = y[:, block].sum(1)
        np.testing.assert_allclose(got[0, p, :rows], want, rtol=1e-5, atol=1e-4)
        want = sig[:, block].sum(1) + sig[:, block].max(1)
        np.testing.assert_allclose(got[1, p, :rows], want, rtol=1e-5, atol=1e-4)
    assert np.isnan(got[:, :, rows:]).all()  # masked-off lanes stay untouched


@tilec.jit
def three_d_sums(x_ptr, out_ptr, s1, s2, n0, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    # x[c, b, a] at a + s1*b + s2*c read as a [BA, BB, BC] tile (axis 0 unit-stride), reduced
    # over each axis in turn
    a = tl.arange(0, BA)[:, None, None]
    b = tl.arange(0, BB)[None, :, None]
    c = tl.arange(0, BC)[None, None, :]
    ok = (a < n0) & (b < BB) & (c < BC)
    ptrs = x_ptr + a + s1 * b + s2 * c
    ia, ib, ic = tl.arange(0, BA), tl.arange(0, BB), tl.arange(0, BC)
    # each reduction reads its own load (a value used once stays a lazy load in its nest)
    x = tl.load(ptrs, ok, other=0.0)
    tl.store(out_ptr + ia[:, None] * BB + ib[None, :], tl.sum(x * x, 2))
    base = BA * BB
    x = tl.load(ptrs, ok, other=0.0)
    tl.store(out_ptr + base + ib[:, None] * BC + ic[None, :], tl.sum(x * x, 0))
    base += BB * BC
    x = tl.load(ptrs, ok, other=0.0)
    tl.store(out_ptr + base + ia[:, None] * BC + ic[None, :], tl.max(x * x, 1))


def test_three_dimensional_tiles() -> None:
    ba, bb, bc, n0 = 32, 4, 8, 29
    x = RNG.standard_normal((bc, bb, ba + 3)).astype(np.float32)
    out = np.full(ba * bb + bb * bc + ba * bc, np.nan, np.float32)
    s2, s1 = x.strides[0] // 4, x.strides[1] // 4
    three_d_sums[(1,)](x, out, s1, s2, n0, BA=ba, BB=bb, BC=bc)
    t = np.zeros((ba, bb, bc))
    t[:n0] = np.transpose(x[:, :, :n0].astype(np.float64), (2, 1, 0)) ** 2
    np.testing.assert_allclose(out[: ba * bb].reshape(ba, bb), t.sum(2), rtol=1e-5, atol=1e-5)
    got = out[ba * bb : ba * bb + bb * bc].reshape(bb, bc)
    np.testing.assert_allclose(got, t.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[ba * bb + bb * bc :].reshape(ba, bc), t.max(1), rtol=1e-6)


@tilec.jit
def transposed_copy(
    x_ptr, y_ptr, x_stride, y_stride, n_cols, n_rows, SCALE, BX: tl.constexpr, BR: tl.constexpr
):
    # y[c, r] = f(x[r, c]) on [BX, BR] tiles: both pointers unit-stride down axis 0 of one and
    # axis 1 of the other; the store goes through a transposed view of the computed tile
    pc, pr = tl.program_id(0), tl.program_id(1)
    cols = pc * BX + tl.arange(0, BX)[:, None]
    rows = pr * BR + tl.arange(0, BR)[None, :]
    ok = (cols < n_cols) & (rows < n_rows)
    x = tl.load(x_ptr + cols + rows * x_stride, ok, other=-7.0)
    v = x * SCALE - 1.0
    t = tl.trans(v)
    tl.store(y_ptr + tl.trans(cols) * y_stride + tl.trans(rows), t, tl.trans(ok))
    # and the tile itself, through strided pointers: rows 2 apart, column c at 3*c
    tl.store(y_ptr + 2 * n_cols * y_stride + cols * 3 + rows * (3 * n_cols), v, ok)


def test_stores_through_a_transposed_view_and_strided_pointers() -> None:
    rows, cols, bx, br = 13, 37, 16, 8
    x = RNG.standard_normal((rows, cols)).astype(np.float32)
    y = np.full(2 * cols * rows + 3 * cols * rows, np.nan, np.float32)
    grid = (tilec.cdiv(cols, bx), tilec.cdiv(rows, br))
    transposed_copy[grid](x, y, cols, rows, cols, rows, 1.5, BX=bx, BR=br)
    v = x.astype(np.float64) * 1.5 - 1
    np.testing.assert_allclose(y[: cols * rows].reshape(cols, rows), v.T, rtol=1e-6, atol=1e-6)
    assert np.isnan(y[cols * rows : 2 * cols * rows]).all()
    tail = y[2 * cols * rows :].reshape(rows, 3 * cols)
    np.testing.assert_allclose(tail[:, ::3], v, rtol=1e-6, atol=1e-6)
    assert np.isnan(tail[:, 1::3]).all() and np.isnan(tail[:, 2::3]).all()


@tilec.jit
def swapped_carries(x_ptr, out_ptr, stride, n_rows, BX: tl.constexpr, BR: tl.constexpr):
    # two transposed accumulators that trade places each step: each must read the other's
    # value from before the step
    cols = tl.arange(0, BX)[:, None]
    rows = tl.arange(0, BR)[None, :]
    a = tl.zeros([BX, BR], dtype=tl.float32)
    b = tl.full([BX, BR], 1.0, tl.float32)
    for start in range(0, n_rows, BR):
        r = start + rows
        x = tl.load(x_ptr + cols + stride * r, r < n_rows, other=0.0)
        a, b = b + x, a * 0.5
    tl.store(out_ptr + cols + BX * rows, a)
    tl.store(out_ptr + BX * BR + cols + BX * rows, b)


def test_swapped_transposed_carries() -> None:
    bx, br, rows = 16, 4, 21
    x = RNG.standard_normal((rows, bx)).astype(np.float32)
    out = np.full(2 * bx * br, np.nan, np.float32)
    swapped_carries[(1,)](x, out, bx, rows, BX=bx, BR=br)
    a, b = np.zeros((bx, br)), np.ones((bx, br))
    xp = np.zeros((tilec.cdiv(rows, br) * br, bx))
    xp[:rows] = x
    for s in range(0, rows, br):
        a, b = b + xp[s : s + br].T, a * 0.5
    np.testing.assert_allclose(out[: bx * br].reshape(br, bx), a.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[bx * br :].reshape(br, bx), b.T, rtol=1e-5, atol=1e-6)


@tilec.jit
def carried_into_dot(x_ptr, w_ptr, out_ptr, stride, n_rows, B: tl.constexpr):
    # a transposed accumulator (as laid out in the loop) read afterwards by a dot
    cols = tl.arange(0, B)[:, None]
    rows = tl.arange(0, B)[None, :]
    acc = tl.zeros([B, B], dtype=tl.float32)
    for start in range(0, n_rows, B):
        r = start + rows
        acc += tl.load(x_ptr + cols + stride * r, r < n_rows, other=0.0)
    w = tl.load(w_ptr + tl.arange(0, B)[:, None] * B + rows)
    tl.store(out_ptr + tl.arange(0, B)[:, None] * B + rows, tl.dot(acc, w))


def test_transposed_carry_feeds_a_dot() -> None:
    b, rows = 16, 40
    x = RNG.standard_normal((rows, b)).astype(np.float32)
    w = RNG.standard_normal((b, b)).astype(np.float32)
    out = np.full((b, b), np.nan, np.float32)
    carried_into_dot[(1,)](x, w, out, b, rows, B=b)
    xp = np.zeros((3 * b, b))
    xp[:rows] = x
    acc = sum(xp[s : s + b].T for s in range(0, rows, b))
    np.testing.assert_allclose(out, acc @ w.astype(np.float64), rtol=1e-4, atol=1e-4)


@tilec.jit
def int_column_max(x_ptr, out_ptr, stride, n_cols, n_rows, BX: tl.constexpr, BR: tl.constexpr):
    cols = tl.program_id(0) * BX + tl.arange(0, BX)[:, None]
    rows = tl.arange(0, BR)[None, :]
    acc = tl.full([BX, BR], -(2**31), tl.int32)
    for start in range(0, n_rows, BR):
        r = start + rows
        ok = (r < n_rows) & (cols < n_cols)
        x = tl.load(x_ptr + cols + stride * r, ok, other=0)
        acc = tl.where(ok, tl.maximum(acc, x * 3 - 1), acc)
    tl.store(out_ptr + cols, tl.max(acc, 1)[:, None], cols < n_cols)


def test_integer_accumulator() -> None:
    rows, cols = 29, 50
    x = RNG.integers(-1000, 1000, (rows, cols)).astype(np.int32)
    out = np.full(cols, 123456789, np.int32)
    int_column_max[(tilec.cdiv(cols, 32),)](x, out, cols, cols, rows, BX=32, BR=8)
    np.testing.assert_array_equal(out, (x.astype(np.int64) * 3 - 1).max(0))


@tilec.jit
def column_tiles_map(x_ptr, y_ptr, stride, n_cols, n_rows, BX: tl.constexpr, BR: tl.constexpr):
    # y = f(x) elementwise on [BX, BR] tiles, unit stride down axis 0 for both
    cols = tl.program_id(0) * BX + tl.arange(0, BX)[:, None]
    rows = tl.program_id(1) * BR + tl.arange(0, BR)[None, :]
    ok = (cols < n_cols) & (rows < n_rows)
    x = tl.load(x_ptr + cols + rows * stride, ok, other=1.0)
    tl.store(y_ptr + cols + rows * stride, tl.exp(x) - x, ok)


def test_elementwise_column_tiles() -> None:
    rows, cols = 19, 83
    x = RNG.standard_normal((rows, cols + 5)).astype(np.float32)
    y = np.full((rows, cols + 5), np.nan, np.float32)
    grid = (tilec.cdiv(cols, 32), tilec.cdiv(rows, 4))
    column_tiles_map[grid](x, y, cols + 5, cols, rows, BX=32, BR=4)
    xd = x[:, :cols].astype(np.float64)
    np.testing.assert_allclose(y[:, :cols], np.exp(xd) - xd, rtol=1e-5, atol=1e-6)
    assert np.isnan(y[:, cols:]).all()


def _llir(fn: object, *sig: object) -> str:
    module = build(fn, *sig)
    triple, cpu = "x86_64-unknown-linux-gnu", "skylake-avx512"
    features = "+avx2,+fma,+avx512f,+avx512vl,+avx512bw,+avx512dq"
    layout = str(machine.target_machine(triple, cpu, features).target_data)
    llmod, _, _ = build_module(module.functions[0], triple, layout, features)
    return isolation.generate(str(llmod), triple, cpu, features, isolate=False).llir


def test_transposed_tiles_compile_to_vector_accesses() -> None:
    # the run-time stride axis is not the inner loop: no gathers, no scatters
    sig = ("*fp32", "*fp32", "i32", "i32", "i32", 64, 4, 1)
    text = _llir(looped_column_sums.fn, *sig)  # type: ignore[attr-defined]
    assert "masked.gather" not in text and "load <16 x float>" in text
    sig2 = ("*fp32", "*fp32", "i32", "i32", "i32", 64, 4)
    text = _llir(column_tiles_map.fn, *sig2)  # type: ignore[attr-defined]
    assert "masked.gather" not in text and "masked.scatter" not in text
    assert "load <16 x float>" in text and "store <16 x float>" in text
