"""argmax/argmin skip NaN like tl.max/tl.min and break ties toward the lowest index, whatever
order a backend combines elements in; the same kernels run on CUDA (marked gpu).

Triton's ``test_argmax_argmin_with_nan`` is the model: ``[nan, 6, 8]`` has argmax 2 and argmin 1.
A row of NaNs only gives index 0 (value NaN). ``tie_break_left=False`` picks the highest index
among ties (NaNs tie with each other).
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host_np
from support.run import jit


@jit
def argmax_kernel(x_ptr, val_ptr, idx_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < N, other=-float("inf"))
    tl.store(val_ptr, tl.max(x, axis=0))
    tl.store(idx_ptr, tl.argmax(x, axis=0))


@jit
def argmin_kernel(x_ptr, val_ptr, idx_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < N, other=float("inf"))
    tl.store(val_ptr, tl.min(x, axis=0))
    tl.store(idx_ptr, tl.argmin(x, axis=0))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "kernel, data, value, index",
    [
        ("max", [np.nan, 6.0, 8.0], 8.0, 2),
        ("min", [np.nan, 6.0, 8.0], 6.0, 1),
        ("max", [3.0, 5.0, np.nan], 5.0, 1),
        ("min", [3.0, np.nan, 1.0], 1.0, 2),
    ],
)
def test_triton_cases(device, kernel, data, value, index):
    fn = argmax_kernel if kernel == "max" else argmin_kernel
    x = np.array(data, np.float32)
    val, idx = dev(np.full(1, np.nan, np.float32), device), dev(np.full(1, -7, np.int32), device)
    fn[(1,)](dev(x, device), val, idx, N=3, BLOCK=4)
    assert host_np(val)[0] == value
    assert host_np(idx)[0] == index


@jit
def rows_kernel(x_ptr, out_ptr, N: tl.constexpr, LEFT: tl.constexpr):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r * N + c)
    o = tl.arange(0, 4)
    tl.store(out_ptr + o, tl.argmax(x, axis=1, tie_break_left=LEFT))
    tl.store(out_ptr + 4 + o, tl.argmin(x, axis=1, tie_break_left=LEFT))
    vmax, imax = tl.max(x, axis=1, return_indices=True, return_indices_tie_break_left=LEFT)
    vmin, imin = tl.min(x, axis=1, return_indices=True, return_indices_tie_break_left=LEFT)
    tl.store(out_ptr + 8 + o, imax)
    tl.store(out_ptr + 12 + o, imin)
    tl.store(out_ptr + 16 + o, (vmax == tl.max(x, axis=1)) | (vmax != vmax))
    tl.store(out_ptr + 20 + o, (vmin == tl.min(x, axis=1)) | (vmin != vmin))


def _nan_arg(row: np.ndarray, take_max: bool, left: bool) -> int:
    """The index a NaN-skipping argmax/argmin gives, ties to the lowest (left) or highest."""
    if np.isnan(row).all():
        return 0 if left else len(row) - 1  # NaNs tie with each other
    best = np.nanmax(row) if take_max else np.nanmin(row)
    hits = np.flatnonzero(row == best)
    return int(hits[0] if left else hits[-1])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "n, dtype",
    # 64 and 256 take the CPU's lane-partial path
    [(8, np.float32), (64, np.float32), (256, np.float32), (64, np.float16), (64, np.float64)],
)
@pytest.mark.parametrize("left", [True, False])
def test_nan_and_ties_anywhere(device, n, dtype, left):
    rng = np.random.default_rng()
    x = rng.integers(-3, 4, (4, n)).astype(dtype)  # many ties
    x[rng.random((4, n)) < 0.3] = np.nan
    x[0, :] = np.nan  # infinities among NaNs: an infinity is a number and wins
    x[0, n // 2], x[0, n // 3] = -np.inf, np.inf
    x[1, :] = np.nan  # a row of NaNs only
    x[2, 0], x[2, -1] = np.nan, np.nan  # NaN at both ends
    x[3, :] = 2.0  # all tied
    out = dev(np.full(24, -9, np.int32), device)
    rows_kernel[(1,)](dev(x, device), out, N=n, LEFT=left)
    got = host_np(out)
    for r in range(4):
        assert got[r] == _nan_arg(x[r], True, left), (r, x[r])
        assert got[4 + r] == _nan_arg(x[r], False, left), (r, x[r])
        assert got[8 + r] == got[r] and got[12 + r] == got[4 + r]
    assert (got[16:] == 1).all()  # the values that come with the indices are max / min


@jit
def int_rows_kernel(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + r * N + c)
    o = tl.arange(0, 4)
    tl.store(out_ptr + o, tl.argmax(x, axis=1))
    tl.store(out_ptr + 4 + o, tl.argmin(x, axis=1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16, np.float16])
def test_ties_go_to_the_lowest_index(device, dtype):
    rng = np.random.default_rng()
    x = rng.integers(0, 3, (4, 64)).astype(dtype)
    out = dev(np.full(8, -9, np.int32), device)
    int_rows_kernel[(1,)](dev(x, device), out, N=64)
    got = host_np(out)
    np.testing.assert_array_equal(got[:4], x.argmax(1))
    np.testing.assert_array_equal(got[4:], x.argmin(1))


@jit
def nan_reduce_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr, tl.max(x, axis=0))
    tl.store(out_ptr + 1, tl.min(x, axis=0))
    tl.store(out_ptr + 2, tl.reduce(x, 0, _max_all))
    tl.store(out_ptr + 3, tl.reduce(x, 0, _min_all))


@jit
def _max_all(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@jit
def _min_all(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("where", [0, 17, 63])
def test_max_min_skip_nan_unless_asked(device, where):
    x = np.random.default_rng().uniform(-5, 5, 64).astype(np.float32)
    x[where] = np.nan
    out = dev(np.zeros(4, np.float32), device)
    nan_reduce_kernel[(1,)](dev(x, device), out, N=64)
    got = host_np(out)
    assert got[0] == np.nanmax(x) and got[1] == np.nanmin(x)
    assert np.isnan(got[2]) and np.isnan(got[3])


@pytest.mark.parametrize("fn, sigs", [
    (argmax_kernel, ("*fp32", "*fp32", "*i32", 3, 4)),
    (rows_kernel, ("*fp32", "*i32", 64, False)),
    (nan_reduce_kernel, ("*fp32", "*fp32", 64)),
])  # fmt: skip
def test_cuda_lowering_assembles(fn, sigs):
    assert_assembles(fn, *sigs)
