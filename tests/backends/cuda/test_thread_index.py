"""thread_index: a register's coordinate as a per-thread part plus a constant, evaluated on every
thread against the general formula ``(thread * spt + offset) % n`` that the lowering emitted
before, and the padded conversion addresses split as (padded thread part) + (padded constant)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tilec.backends.cuda import thread_index as ti
from tilec.backends.cuda.layout import (
    WARP_SIZE,
    Layout,
    Slice,
    default_layout,
    register_keys,
    thread_index,
)
from tilec.backends.cuda.mma import acc_layout, warp_grid


def _general(layout: Layout, shape: tuple[int, ...], key: tuple[int, ...], lane: int, warp: int):  # type: ignore[no-untyped-def]
    out = []
    for dm, n, i in zip(layout.dim_maps(), shape, key):
        off = dm.offset(i, n)
        if dm.distinct_threads(n) == 1:
            out.append(off % n)
        else:
            out.append((thread_index(dm, lane, warp) * dm.spt + off) % n)
    return out


def _value(idx: ti.Index, lane: int, warp: int) -> int:
    return sum(c * p.eval(lane, warp) for p, c in idx.terms) + idx.const


def _cases():  # type: ignore[no-untyped-def]
    for warps in (1, 8):
        for shape in (
            (16,),
            (128,),
            (1024,),
            (8, 64),
            (64, 8),
            (128, 256),
            (32, 32),
            (1, 64),
            (2, 2),
        ):
            for vec in (1, 8):
                yield warps, shape, default_layout(shape, warps, vec)
                if len(shape) == 2:
                    yield warps, shape, default_layout(shape, warps, vec, (0, 1))
                    yield warps, shape[:1], Slice(default_layout(shape, warps, vec), 1)
        for m, n in ((16, 16), (64, 64), (128, 256)):
            wm, wn = warp_grid(m, n, warps)
            yield warps, (m, n), acc_layout(False, wm, wn)


@pytest.mark.parametrize("warps,shape,layout", list(_cases()))
def test_coords_match_the_general_formula(warps: int, shape, layout) -> None:  # type: ignore[no-untyped-def]
    exact = 0
    for key in register_keys(layout, shape):
        idx = ti.coords(layout, shape, key)
        if idx is None:
            continue
        exact += 1
        general = np.array(
            [
                _general(layout, shape, key, lane, warp)
                for warp, lane in itertools.product(range(warps), range(WARP_SIZE))
            ]
        ).reshape(-1, len(shape))
        got = np.array(
            [np.array(ti.thread_values(c.terms, warps, WARP_SIZE)) + c.const for c in idx]
        ).T
        assert np.array_equal(got.reshape(general.shape), general)
    # the layouts tilec builds are powers of two: every coordinate has the exact form
    assert exact == len(register_keys(layout, shape))


@pytest.mark.parametrize("warps,shape,layout", list(_cases()))
def test_padding_splits_where_the_low_bits_do_not_carry(warps: int, shape, layout) -> None:  # type: ignore[no-untyped-def]
    """Conversion buffers pad ``pad`` elements after every ``2**shift``: where low_bits_max
    allows it, padded(T + C) is padded(T) + padded(C) in every thread."""
    for shift, pad in ((6, 2), (5, 1), (4, 1)):
        for key in register_keys(layout, shape):
            cs = ti.coords(layout, shape, key)
            assert cs is not None
            idx = ti.linear(cs, shape)  # type: ignore[arg-type]
            low = ti.low_bits_max(idx.terms, warps, WARP_SIZE, shift)
            if low is None or low + (idx.const % (1 << shift)) >= 1 << shift:
                continue
            t = np.array(ti.thread_values(idx.terms, warps, WARP_SIZE), np.int64)
            whole = t + idx.const
            split = t + pad * (t >> shift) + idx.const + pad * (idx.const >> shift)
            assert np.array_equal(whole + pad * (whole >> shift), split)


def test_index_arithmetic() -> None:
    layout = default_layout((64, 64), 4, 4)
    a, b = ti.coords(layout, (64, 64), (1, 2))  # type: ignore[misc]
    for lane, warp in ((0, 0), (5, 3), (31, 1)):
        x, y = _value(a, lane, warp), _value(b, lane, warp)
        assert _value(a * 64 + b, lane, warp) == x * 64 + y
        assert _value(63 - b, lane, warp) == 63 - y
        assert _value(a - b + 7, lane, warp) == x - y + 7
    assert not (a - a).terms and (a - a).const == 0
