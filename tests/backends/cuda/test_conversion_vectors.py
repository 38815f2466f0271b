"""Layout conversions move consecutive registers through shared memory as one vector only where
that is right in every thread: the elements' padded buffer addresses are consecutive and the
first is aligned to the vector (conversion._Buffer). Checked on every thread of the block for
the layouts tilec builds, and in the PTX of the tutorial matmul's epilogue."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from tilec.backends.cuda import conversion
from tilec.backends.cuda import thread_index as ti
from tilec.backends.cuda.layout import WARP_SIZE, default_layout, register_keys
from tilec.backends.cuda.mma import acc_layout, warp_grid
from tilec.backends.cuda.target_info import NvptxTarget


def _buffer(warps: int, elem_bytes: int) -> conversion._Buffer:
    buf = conversion._Buffer.__new__(conversion._Buffer)
    buf.L = SimpleNamespace(num_warps=warps, target=NvptxTarget())  # type: ignore[assignment]
    buf.shift = (128 // elem_bytes).bit_length() - 1
    buf.pad = max(1, 4 // elem_bytes)
    return buf


def _layouts():  # type: ignore[no-untyped-def]
    for warps in (1, 8):
        for shape in ((8, 64), (64, 8), (128, 64), (32, 256), (1024,)):
            for vec in (2, 4, 8):
                yield warps, shape, default_layout(shape, warps, vec)
        for m, n in ((16, 16), (64, 64), (128, 256)):
            wm, wn = warp_grid(m, n, warps)
            yield warps, (m, n), acc_layout(False, wm, wn)


@pytest.mark.parametrize("elem_bytes", [1, 2, 4, 8])
@pytest.mark.parametrize("warps,shape,layout", list(_layouts()))
def test_vectors_are_contiguous_and_aligned_in_every_thread(
    warps: int, shape, layout, elem_bytes: int
) -> None:  # type: ignore[no-untyped-def]
    buf = _buffer(warps, elem_bytes)
    n = min(layout.dim_maps()[-1].spt_in(shape[-1]), 16 // elem_bytes)
    widths = []
    for key in register_keys(layout, shape):
        if n < 2 or key[-1] % n:
            continue
        cs = ti.coords(layout, shape, key)
        assert cs is not None
        for start in (0, 96):  # a second tile written after a first one
            idx = ti.linear(cs, shape) + start  # type: ignore[arg-type]
            v = buf._width(idx, n)
            widths.append(v)
            t = np.array(ti.thread_values(idx.terms, warps, WARP_SIZE), np.int64)
            for j in range(0, n, v):
                whole = t + idx.const + j + np.arange(v)[:, None]
                padded = whole + buf.pad * (whole >> buf.shift)
                assert (np.diff(padded, axis=0) == 1).all()  # consecutive in every thread
                assert (padded[0] % v == 0).all()  # aligned to the vector
    if widths and layout.dim_maps()[-1].spt >= 2 and elem_bytes <= 2:
        # 1- and 2-byte data pad a whole word, so pairs stay aligned (4-byte data pads one
        # element per row: a vector of two would straddle alignment in some threads)
        assert max(widths) >= 2


def test_tutorial_matmul_epilogue_moves_vectors() -> None:
    """The accumulator (two adjacent columns per thread) goes in 32-bit stores and comes back
    in 32-bit loads: 64 of each per thread instead of 128 16-bit accesses."""
    from test_matmul_k_loop import BIG, compile_matmul

    block, warps, stages = BIG
    ptx = compile_matmul(block, warps, stages).asm["ptx"]
    assert isinstance(ptx, str)
    tail = ptx[ptx.rindex("cp.async.wait_all") :]
    ops = [line.split()[0] for line in tail.splitlines() if line.strip() and line.startswith("\t")]
    assert ops.count("st.shared.v2.b16") + ops.count("st.shared.b32") == 64
    assert ops.count("ld.shared.b32") == 64
    assert not any(op in ("st.shared.b16", "ld.shared.b16", "ld.shared.u16") for op in ops)


def test_every_thread_evaluation_matches_a_scalar_loop() -> None:
    layout, warps = default_layout((64, 64), 4, 8), 4
    cs = ti.coords(layout, (64, 64), (1, 0))
    assert cs is not None
    idx = ti.linear(cs, (64, 64))  # type: ignore[arg-type]
    values = ti.thread_values(idx.terms, warps, WARP_SIZE)
    for warp, lane in itertools.product(range(warps), range(32)):
        want = sum(c * p.eval(lane, warp) for p, c in idx.terms)
        assert values[warp * 32 + lane] == want
