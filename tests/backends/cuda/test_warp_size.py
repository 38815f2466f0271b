"""Layouts and thread-index facts for a warp of any power-of-two size (a second GPU vendor's
64-lane wavefront), not only NVIDIA's 32: the lanes a layout spreads over, the lane bits a
replicated layout leaves free, and the threads an index is evaluated in."""

from __future__ import annotations

import math

import pytest

from tilec.backends.cuda import thread_index as ti
from tilec.backends.cuda.layout import WARP_SIZE, default_layout, ownership, register_keys
from tilec.backends.cuda.target_info import NvptxTarget


@pytest.mark.parametrize("warp_size", [32, 64])
@pytest.mark.parametrize("shape", [(128,), (64, 64), (1, 256), (8, 4)])
def test_layout_spreads_over_every_lane(warp_size: int, shape: tuple[int, ...]) -> None:
    layout = default_layout(shape, 4, 4, warp_size=warp_size)
    assert math.prod(dm.tpw for dm in layout.dims) == warp_size
    assert math.prod(dm.wpc for dm in layout.dims) == 4


def test_a_small_tile_leaves_the_upper_lanes_free() -> None:
    # 32 elements one per lane: on a 64-lane warp lanes 32..63 hold copies and must not store
    layout = default_layout((32,), 1, 1, warp_size=64)
    own = ownership(layout, (32,), 1, warp_size=64)
    owners = [lane for lane in range(64) if own.owns(lane, 0)]
    assert owners == list(range(32))
    assert ownership(default_layout((32,), 1, 1), (32,), 1).everyone


@pytest.mark.parametrize("warp_size", [32, 64])
def test_index_values_cover_the_block(warp_size: int) -> None:
    shape = (256,)
    layout = default_layout(shape, 2, 1, warp_size=warp_size)
    cs = ti.coords(layout, shape, register_keys(layout, shape)[0])
    assert cs is not None
    values = ti.thread_values(cs[0].terms, 2, warp_size)
    assert len(values) == 2 * warp_size
    assert sorted(values) == list(range(2 * warp_size))


def test_nvptx_warp_is_32() -> None:
    assert NvptxTarget().warp_size == WARP_SIZE == 32


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_a_kernel_records_its_block_from_the_targets_warp_size(num_warps: int) -> None:
    # the launch's block is the compiled kernel's metadata, not num_warps times a constant
    import tilec
    import tilec.language as tl
    from support.build import build
    from tilec.backends.cuda.compiler import CudaCompiler
    from tilec.backends.target import CompileOptions, Target

    @tilec.jit
    def copy(x_ptr, y_ptr):
        offs = tl.arange(0, 256)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))

    module = build(copy.fn, "*fp32", "*fp32")
    options = CompileOptions(num_warps=num_warps)
    art = CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_80"), options)
    assert art.metadata.threads == num_warps * NvptxTarget().warp_size
    assert f".maxntid {num_warps * 32}\n" in art.asm["ptx"]
