"""The layout chooser: threads spread over every dimension that has room, 16-byte vectors along
the contiguous axis, and a reduction never inherits a layout that copies its operand into every
thread."""

from __future__ import annotations

import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends.cuda import compiler as cuda_compiler
from tilec.backends.cuda.layout import (
    WARP_SIZE,
    Blocked,
    Slice,
    default_layout,
    elements_per_thread,
)


def _threads(layout: Blocked) -> int:
    n = 1
    for dm in layout.dims:
        n *= dm.tpw * dm.wpc
    return n


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("n", [256, 2048, 8192])
def test_row_tile_spreads_over_all_threads(n: int, num_warps: int) -> None:
    layout = default_layout((1, n), num_warps, vec=4)
    threads = WARP_SIZE * num_warps
    assert elements_per_thread(layout, (1, n)) == max(1, n // threads)
    assert layout.dims[1].tpw * layout.dims[1].wpc == threads
    assert layout.dims[1].spt == min(4, max(1, n // threads))


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("n", [256, 2048])
def test_column_tile_spreads_over_all_threads(n: int, num_warps: int) -> None:
    layout = default_layout((n, 1), num_warps, vec=4)
    assert elements_per_thread(layout, (n, 1)) == max(1, n // (WARP_SIZE * num_warps))
    assert layout.dims[0].tpw * layout.dims[0].wpc == WARP_SIZE * num_warps


@pytest.mark.parametrize(
    ("shape", "elem_bytes", "num_warps", "spt", "tpw", "wpc"),
    [
        # fp32: 4 elements (16 bytes) per thread along the last dimension
        ((64, 64), 4, 4, (1, 4), (2, 16), (4, 1)),
        ((64, 64), 4, 8, (1, 4), (2, 16), (8, 1)),
        ((16, 128), 4, 1, (1, 4), (1, 32), (1, 1)),
        # fp16: 8 elements (16 bytes) per thread
        ((64, 64), 2, 4, (1, 8), (4, 8), (4, 1)),
        ((128, 256), 2, 8, (1, 8), (1, 32), (8, 1)),
        # a small tile shrinks the vector so no warp idles
        ((16, 16), 4, 4, (1, 2), (4, 8), (4, 1)),
    ],
)
def test_blocked_layout_for_shape_dtype_and_warps(
    shape: tuple[int, int],
    elem_bytes: int,
    num_warps: int,
    spt: tuple[int, int],
    tpw: tuple[int, int],
    wpc: tuple[int, int],
) -> None:
    layout = default_layout(shape, num_warps, vec=16 // elem_bytes)
    assert tuple(d.spt for d in layout.dims) == spt
    assert tuple(d.tpw for d in layout.dims) == tpw
    assert tuple(d.wpc for d in layout.dims) == wpc
    assert _threads(layout) == WARP_SIZE * num_warps


def test_order_puts_the_vector_on_the_contiguous_axis() -> None:
    layout = default_layout((64, 64), 4, vec=4, order=(0, 1))
    assert layout.order == (0, 1)
    assert layout.dims[0].spt == 4 and layout.dims[1].spt == 1
    assert layout.dims[0].tpw == 16


def test_slice_keeps_the_parent_placement() -> None:
    parent = default_layout((8, 256), 4, vec=4)
    sliced = Slice(parent, 1)
    assert sliced.dim_maps() == (parent.dims[0],)
    # 2 warps along the rows (the other 2 along the columns): each thread keeps 4 row sums
    assert (parent.dims[0].tpw, parent.dims[0].wpc) == (1, 2)
    assert elements_per_thread(sliced, (8,)) == 4


# ---- layout assignment on whole kernels --------------------------------------------------


@tilec.jit
def _row_sum(in_ptr, out_ptr, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rindex = tl.arange(0, RBLOCK)[None, :]
    rmask = rindex < rnumel
    x = tl.load(in_ptr + (rindex + rnumel * xindex), rmask & xmask, other=0.0)
    tl.store(out_ptr + xindex, tl.sum(x, 1)[:, None], xmask)


@tilec.jit
def _column_copy(in_ptr, out_ptr, n, XBLOCK: tl.constexpr):
    xindex = tl.program_id(0) * XBLOCK + tl.arange(0, XBLOCK)[:, None]
    tl.store(out_ptr + xindex, tl.load(in_ptr + xindex))


def _plans(kernel, signature: str, num_warps: int = 4):  # type: ignore[no-untyped-def]
    """Compile up to the LLVM IR (no PTX) and return the lowering's value → layout plan."""
    seen = []
    real_lower = cuda_compiler.lower

    def spy(func, arch, options, **kw):  # type: ignore[no-untyped-def]
        _text, lowering = real_lower(func, arch, options, **kw)
        seen.append(lowering)
        raise _Stop

    cuda_compiler.lower = spy
    try:
        with config.override(cache_enabled=False), pytest.raises(_Stop):
            tilec.compile(kernel, signature, target="cuda:sm_80", num_warps=num_warps)
    finally:
        cuda_compiler.lower = real_lower
    return seen[0]


class _Stop(Exception):
    pass


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_one_row_reduction_is_spread_over_all_threads(num_warps: int) -> None:
    lowering = _plans(
        _row_sum, "*fp32:16, *fp32:16, i32, i32, XBLOCK=1, RBLOCK=2048", num_warps=num_warps
    )
    worst = max(
        elements_per_thread(t.layout, t.shape)
        for t in lowering.env.values()
        if hasattr(t, "layout") and t.shape == (1, 2048)
    )
    assert worst == 2048 // (WARP_SIZE * num_warps)


def test_column_access_vectorizes_along_dimension_0() -> None:
    lowering = _plans(_column_copy, "*fp32:16, *fp32:16, i32, XBLOCK=1024")
    loaded = [t for t in lowering.env.values() if hasattr(t, "layout") and t.shape == (1024, 1)]
    assert loaded
    for t in loaded:
        assert t.layout.order[0] == 0
        assert t.layout.dim_maps()[0].spt == 4
