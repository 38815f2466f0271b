"""Scans in place (backends/cuda/scan.py) give the sequential scan, offline.

The scan helper runs on a NumPy model of a thread block (simt_model.py): every thread's
registers in the tile's layout, butterfly shuffles within warps (the model's TargetInfo), warp
totals through shared memory. The combine function is the composition of affine maps,
associative but not commutative, so any element taken out of order shows. Layouts are the
backend's own for 1-D and 2-D tiles, either axis, forward and reverse; the PTX of a cumsum has
shuffles and no per-thread copy of the scanned axis.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import simt_model
from cuda_harness import gpu_available

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends.cuda import scan
from tilec.backends.cuda.layout import default_layout
from tilec.backends.cuda.tile import Tile

P = 1_000_003  # values stay below 2**21: products fit in int64


def _compose(acc: list[np.ndarray], new: list[np.ndarray]) -> list[np.ndarray]:
    """(a1, b1) then (a2, b2): x -> a2 * (a1 * x + b1) + b2."""
    (a1, b1), (a2, b2) = acc, new
    return [simt_model.reg((a1 * a2) % P), simt_model.reg((a2 * b1 + b2) % P)]


def _reference(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool) -> list[np.ndarray]:
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    if reverse:
        a, b = a[..., ::-1], b[..., ::-1]
    outs_a, outs_b = np.empty_like(a), np.empty_like(b)
    acc = [a[..., 0], b[..., 0]]
    outs_a[..., 0], outs_b[..., 0] = acc
    for i in range(1, a.shape[-1]):
        acc = _compose(acc, [a[..., i], b[..., i]])
        outs_a[..., i], outs_b[..., i] = acc
    if reverse:
        outs_a, outs_b = outs_a[..., ::-1], outs_b[..., ::-1]
    return [np.moveaxis(outs_a, -1, axis), np.moveaxis(outs_b, -1, axis)]


class _FakeScan:
    def __init__(self, axis: int, reverse: bool) -> None:
        self.axis, self.reverse = axis, reverse


CASES = [
    ((1024,), 4, 4), ((1024,), 8, 1), ((256,), 4, 1), ((128,), 4, 1), ((4096,), 4, 4),
    ((8, 64), 4, 4), ((64, 8), 4, 1), ((16, 128), 8, 4), ((2, 512), 4, 4), ((32, 32), 8, 1),
    # more threads than elements along an axis: threads repeat elements
    ((64,), 4, 1), ((16,), 4, 4), ((8,), 8, 1), ((4, 16), 4, 1), ((2, 8), 8, 4), ((1, 64), 4, 1),
]  # fmt: skip


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("shape", "num_warps", "vec"), CASES)
def test_matches_the_sequential_scan(
    shape: tuple[int, ...], num_warps: int, vec: int, reverse: bool
) -> None:
    rng = np.random.default_rng(sum(shape) + num_warps + vec)
    a = rng.integers(1, P, shape)
    b = rng.integers(0, P, shape)
    layout = default_layout(shape, num_warps, vec)
    for axis in range(len(shape)):
        block = simt_model.Block(num_warps)
        tiles = []
        for data in (a, b):
            regs = {}
            for key in block.keys(layout, shape):
                regs[key] = simt_model.reg(data[tuple(block.coord(layout, shape, key))])
            tiles.append(Tile(layout, shape, regs))
        op = _FakeScan(axis, reverse)
        got = scan.scan_in_place(block, op, tiles, _compose)  # type: ignore[arg-type]
        want = _reference(a, b, axis, reverse)
        for tile, ref in zip(got, want):
            for key, value in tile.regs.items():
                np.testing.assert_array_equal(value, ref[tuple(block.coord(layout, shape, key))])


@tilec.jit
def cumsum_row(x_ptr, out_ptr, N: tl.constexpr):  # type: ignore[no-untyped-def]
    cols = tl.arange(0, N)
    tl.store(out_ptr + cols, tl.cumsum(tl.load(x_ptr + cols), axis=0))


def test_ptx_of_a_long_cumsum_scales_with_the_elements_per_thread() -> None:
    with config.override(cache_enabled=False):
        compiled = tilec.compile(
            cumsum_row, "*fp32:16, *fp32:16, N=4096", target="cuda:sm_90a", num_warps=4
        )
    ptx = str(compiled.asm["ptx"])
    assert len(re.findall(r"shfl\.sync\.bfly", ptx)) >= 5  # 32 lanes along the axis
    # 32 elements per thread: about 180 additions (a thread holding the whole row: 4095)
    assert len(re.findall(r"\badd\.(rn\.)?f32", ptx)) < 400
    assert len(ptx.splitlines()) < 1000


@tilec.jit
def _affine(a1, b1, a2, b2):  # type: ignore[no-untyped-def]
    return (a1 * a2) % 1_000_003, (a2 * b1 + b2) % 1_000_003


@tilec.jit
def affine_scan(  # type: ignore[no-untyped-def]
    a_ptr, b_ptr, oa_ptr, ob_ptr,
    M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr,
):  # fmt: skip
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    ra, rb = tl.associative_scan(
        (tl.load(a_ptr + offs), tl.load(b_ptr + offs)), AXIS, _affine, reverse=REVERSE
    )
    tl.store(oa_ptr + offs, ra)
    tl.store(ob_ptr + offs, rb)


SCANS = [
    (4, 64, 1, False),
    (4, 64, 0, True),
    (64, 32, 0, False),
    (8, 512, 1, True),
    (2, 8, 1, False),
]


def _run_affine_scan(shape: tuple[int, int], axis: int, reverse: bool, device: str) -> None:
    rng = np.random.default_rng(sum(shape) + axis)
    a, b = rng.integers(1, P, shape), rng.integers(0, P, shape)
    outs = [np.zeros(shape, np.int64), np.zeros(shape, np.int64)]
    if device == "cuda":
        import torch

        args = [torch.from_numpy(x).cuda() for x in (a, b, *outs)]
        affine_scan[(1,)](*args, *shape, axis, reverse)
        outs = [t.cpu().numpy() for t in args[2:]]
    else:
        affine_scan[(1,)](a, b, *outs, *shape, axis, reverse)
    for got, want in zip(outs, _reference(a, b, axis, reverse)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("m", "n", "axis", "reverse"), SCANS)
def test_the_reference_agrees_with_the_cpu_backend(
    m: int, n: int, axis: int, reverse: bool
) -> None:
    _run_affine_scan((m, n), axis, reverse, "cpu")


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch")
@pytest.mark.parametrize(("m", "n", "axis", "reverse"), SCANS)
def test_a_non_commutative_scan_on_the_gpu(m: int, n: int, axis: int, reverse: bool) -> None:
    _run_affine_scan((m, n), axis, reverse, "cuda")
