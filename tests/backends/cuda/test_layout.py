"""Blocked and slice layouts cover every element, and replicated elements have one owner."""

from __future__ import annotations

import itertools

import pytest

from tilec.backends.cuda.layout import (
    WARP_SIZE,
    Layout,
    Slice,
    default_layout,
    expand,
    ownership,
    register_keys,
)


def _thread_coords(
    layout: Layout, shape: tuple[int, ...], lane: int, warp: int
) -> list[tuple[int, ...]]:
    """The elements one thread holds, computed the way the lowering's IR computes them."""
    out = []
    for key in register_keys(layout, shape):
        coord = []
        for dm, n, i in zip(layout.dim_maps(), shape, key):
            tid = ((warp // dm.warp_stride) % dm.wpc) * dm.tpw + (lane // dm.lane_stride) % dm.tpw
            coord.append((tid * dm.spt + dm.offset(i, n)) % n)
        out.append(tuple(coord))
    return out


SHAPES = [
    (1024,),
    (16,),
    (1,),
    (64, 64),
    (16, 128),
    (128, 16),
    (2, 256),
    (32, 1),
    (1, 32),
    (4, 8, 16),
]


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("vec", [1, 4, 8])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_default_layout_covers_every_element_once_per_owner(
    shape: tuple[int, ...], vec: int, num_warps: int
) -> None:
    layout = default_layout(shape, num_warps, vec)
    seen: dict[tuple[int, ...], int] = {}
    for warp, lane in itertools.product(range(num_warps), range(WARP_SIZE)):
        coords = _thread_coords(layout, shape, lane, warp)
        assert len(set(coords)) == len(coords), "a thread holds an element twice"
        for c in coords:
            seen[c] = seen.get(c, 0) + 1
    assert set(seen) == set(itertools.product(*(range(n) for n in shape)))
    counts = set(seen.values())
    assert len(counts) == 1, "elements are replicated unevenly"


def test_vector_width_follows_the_fastest_dimension() -> None:
    layout = default_layout((64, 64), 4, 4)
    assert layout.order == (1, 0)
    assert layout.dims[1].spt == 4 and layout.dims[0].spt == 1
    assert layout.dims[1].tpw * layout.dims[0].tpw == WARP_SIZE


def test_slice_then_expand_gives_the_parent_back() -> None:
    parent = default_layout((32, 64), 4, 4)
    sliced = Slice(parent, 1)
    assert sliced.dim_maps() == (parent.dims[0],)
    assert expand(sliced, 1) == parent
    other = expand(sliced, 0)
    assert other.dim_maps()[1] == parent.dims[0] and other.dim_maps()[0].tpw == 1


def _layouts() -> list[tuple[Layout, tuple[int, ...], int]]:
    """Default layouts, their slices and re-expansions, on shapes that replicate data."""
    out: list[tuple[Layout, tuple[int, ...], int]] = []
    for shape, warps, vec in [
        ((16, 16), 4, 16),
        ((8, 16), 4, 4),
        ((128,), 4, 4),
        ((2, 8), 1, 4),
        ((64, 64), 8, 4),
    ]:
        parent = default_layout(shape, warps, vec)
        out.append((parent, shape, warps))
        for axis in range(len(shape)):
            reduced = shape[:axis] + shape[axis + 1 :]
            if reduced:
                out.append((Slice(parent, axis), reduced, warps))
                out.append((expand(Slice(parent, axis), 0), (1, *reduced), warps))
    return out


@pytest.mark.parametrize(("layout", "shape", "num_warps"), _layouts(), ids=str)
def test_every_element_has_exactly_one_owner(
    layout: Layout, shape: tuple[int, ...], num_warps: int
) -> None:
    own = ownership(layout, shape, num_warps)
    owners: dict[tuple[int, ...], int] = {}
    for warp, lane in itertools.product(range(num_warps), range(WARP_SIZE)):
        if own.owns(lane, warp):
            for c in _thread_coords(layout, shape, lane, warp):
                owners[c] = owners.get(c, 0) + 1
    assert owners == dict.fromkeys(itertools.product(*(range(n) for n in shape)), 1)


def _axis_coords(dm, n: int, lane: int, warp: int) -> list[int]:  # type: ignore[no-untyped-def]
    tid = ((warp // dm.warp_stride) % dm.wpc) * dm.tpw + (lane // dm.lane_stride) % dm.tpw
    return [(tid * dm.spt + dm.offset(i, n)) % n for i in range(dm.regs(n))]


def _with_warp_index(dm, warp: int, w: int) -> int:  # type: ignore[no-untyped-def]
    """``warp`` with its index along ``dm`` replaced by ``w``."""
    old = (warp // dm.warp_stride) % dm.wpc
    return warp + (w - old) * dm.warp_stride


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ((1024,), 0),
        ((16,), 0),
        ((64, 64), 0),
        ((64, 64), 1),
        ((2, 256), 0),
        ((256, 2), 1),
        ((8, 16), 1),
    ],
    ids=str,
)
def test_reduction_steps_combine_each_element_once(
    shape: tuple[int, ...], axis: int, num_warps: int
) -> None:
    """Simulates the reduction's steps (in-thread, butterfly over distinct lanes, one partial per
    distinct warp) with the DimMap quantities the lowering uses."""
    dm = default_layout(shape, num_warps, 4).dims[axis]
    n = shape[axis]
    part = {
        (lane, warp): sorted(_axis_coords(dm, n, lane, warp))
        for lane in range(WARP_SIZE)
        for warp in range(num_warps)
    }
    step = 1
    while step < dm.distinct_lanes(n):
        mask = dm.lane_stride * step
        part = {
            (lane, warp): sorted(v + part[(lane ^ mask, warp)]) for (lane, warp), v in part.items()
        }
        step *= 2
    nw = dm.distinct_warps(n)
    slots: dict[tuple[int, int], list[int]] = {}
    for (lane, warp), v in part.items():
        slot = (lane, _with_warp_index(dm, warp, 0) * 64 + ((warp // dm.warp_stride) % dm.wpc) % nw)
        assert slots.setdefault(slot, v) == v, "threads writing one slot disagree"
    for lane, warp in part:
        base = _with_warp_index(dm, warp, 0) * 64
        total = sorted(itertools.chain.from_iterable(slots[(lane, base + w)] for w in range(nw)))
        assert total == list(range(n)), f"thread ({lane}, {warp}) combined {total}"
