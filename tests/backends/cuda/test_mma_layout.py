"""The mma.sync index math of backends/cuda/mma.py, simulated on the CPU for a whole CTA.

An independent model of the PTX ISA (ldmatrix: which lane's row address feeds which matrix and
which thread receives which 16-bit pieces, with and without .trans; mma.sync m16n8k16 / m16n8k8
tf32 / m16n8k32 s8: which fragment element is which matrix entry) runs the warps' instructions
on operands written to a byte array with ``swizzled_offset``; the accumulator registers, read
back through the accumulator layout's coordinates, must equal A @ B exactly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tilec.backends.cuda.layout import thread_index
from tilec.backends.cuda.mma import (
    AccKind,
    MmaKind,
    MmaPlan,
    a_lane_address,
    acc_key,
    b_lane_address,
    register_a_words,
    swizzled_offset,
    warp_grid,
)

DTYPES = {MmaKind.F16: np.float16, MmaKind.TF32: np.float32, MmaKind.S8: np.int8}


# -- the PTX ISA model -----------------------------------------------------------------------


def isa_a(kind: MmaKind, lane: int, i: int) -> tuple[int, int]:
    """(row, k) of A fragment element ``i`` in ``lane`` (PTX ISA, mma.sync fragment tables)."""
    g, t = lane // 4, lane % 4
    if kind is MmaKind.TF32:
        return g + 8 * (i % 2), t + 4 * (i // 2)
    if kind is MmaKind.S8:
        return g + 8 * ((i // 4) % 2), 4 * t + i % 4 + 16 * (i // 8)
    return g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)


def isa_b(kind: MmaKind, lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    if kind is MmaKind.TF32:
        return t + 4 * i, g
    if kind is MmaKind.S8:
        return 4 * t + i % 4 + 16 * (i // 4), g
    return 2 * t + i % 2 + 8 * (i // 2), g


def isa_c(lane: int, i: int) -> tuple[int, int]:
    g, t = lane // 4, lane % 4
    return g + 8 * (i // 2), 2 * t + i % 2


def ldmatrix(smem: np.ndarray, addrs: list[int], count: int, trans: bool) -> list[list[bytes]]:
    """Per lane, ``count`` 32-bit registers: matrix q's rows start at the addresses of lanes
    8q..8q+7; a lane gets row lane//4, 16-bit columns 2*(lane%4)+{0,1}, or with .trans the
    entries (row 2*(lane%4)+{0,1}, column lane//4)."""
    out = []
    for lane in range(32):
        regs = []
        for q in range(count):
            if not trans:
                start = addrs[8 * q + lane // 4] + 4 * (lane % 4)
                regs.append(smem[start : start + 4].tobytes())
            else:
                parts = []
                for e in range(2):
                    start = addrs[8 * q + 2 * (lane % 4) + e] + 2 * (lane // 4)
                    parts.append(smem[start : start + 2].tobytes())
                regs.append(b"".join(parts))
        out.append(regs)
    return out


def check_conflict_free(addrs: list[int], count: int) -> None:
    """Each 8-lane phase of an ldmatrix reads 8 rows of 16 bytes: all 32 banks, once each."""
    for q in range(count):
        groups = {(a // 16) % 8 for a in addrs[8 * q : 8 * q + 8]}
        assert len(groups) == 8, f"bank conflict in matrix {q}: {addrs[8 * q : 8 * q + 8]}"


# -- the simulation ------------------------------------------------------------------------------


def stage(x: np.ndarray, kmajor_rows: bool) -> tuple[np.ndarray, int]:
    """Write matrix ``x`` (rows outer) swizzled into a byte array; every byte written once."""
    rows, cols = x.shape
    eb = x.dtype.itemsize
    row_bytes = cols * eb
    smem = np.zeros(rows * row_bytes, np.uint8)
    written = np.zeros(rows * row_bytes, bool)
    raw = x.view(np.uint8).reshape(rows, row_bytes)
    for r, c in itertools.product(range(rows), range(cols)):
        off = swizzled_offset(r, c * eb, row_bytes)
        assert not written[off : off + eb].any()
        smem[off : off + eb] = raw[r, c * eb : (c + 1) * eb]
        written[off : off + eb] = True
    assert written.all()
    return smem, row_bytes


def elements(kind: MmaKind, reg: bytes) -> np.ndarray:
    return np.frombuffer(reg, DTYPES[kind])


def acc_layout_registers(plan: MmaPlan, x: np.ndarray, warp: int) -> list[dict]:
    """Per lane, the registers of a [M, cols] tile ``x`` held in ``plan``'s accumulator layout
    (register key -> element), as an earlier dot's result or an epilogue of it would be."""
    rows_map, cols_map = plan.layout().dim_maps()
    m, cols = x.shape
    out = []
    for lane in range(32):
        regs = {}
        for ri, ci in itertools.product(range(m // (8 * plan.wm)), range(cols // (4 * plan.wn))):
            row = thread_index(rows_map, lane, warp) * rows_map.spt + rows_map.offset(ri, m)
            col = thread_index(cols_map, lane, warp) * cols_map.spt + cols_map.offset(ci, cols)
            regs[ri, ci] = x[row % m, col % cols]
        out.append(regs)
    return out


def register_fragment(kind: MmaKind, regs: dict, mt: int, ks: int) -> list[bytes]:
    """The four A words rules.dot_mma builds from registers (mma_fragments.RegisterFragments)."""
    words = []
    for row, col in register_a_words(mt, ks):
        pair = np.array([regs[row, col], regs[row, col + 1]], DTYPES[kind])
        words.append(pair.tobytes())
    return words


def run_cta(
    plan: MmaPlan, num_warps: int, a_kmajor: bool, b_kmajor: bool, a, b, a_registers=False
) -> np.ndarray:
    kind = plan.kind
    sa = stage(a if a_kmajor else np.ascontiguousarray(a.T), a_kmajor)
    sb = stage(np.ascontiguousarray(b.T) if b_kmajor else b, b_kmajor)
    eb = kind.elem_bytes
    per_reg = 4 // eb
    layout = plan.layout()
    rows_map, cols_map = layout.dim_maps()
    result = np.full((plan.m, plan.n), np.nan)
    for warp in range(num_warps):
        warp_m, warp_n = (warp // plan.wn) % plan.wm, warp % plan.wn
        acc = {
            (lane, key): 0.0
            for lane in range(32)
            for key in itertools.product(range(plan.m // (8 * plan.wm)), range(2 * plan.n_tiles))
        }
        held = acc_layout_registers(plan, a, warp) if a_registers else None
        for ks in range(plan.k_steps):
            afr = []
            for mt in range(plan.m_tiles):
                if held is not None:
                    afr.append([register_fragment(kind, held[lane], mt, ks) for lane in range(32)])
                    continue
                addrs = []
                for lane in range(32):
                    r, c = a_lane_address(plan, a_kmajor, warp_m, lane, mt, ks)
                    row, col = (r, c) if a_kmajor else (c, r)
                    addrs.append(swizzled_offset(row, col * eb, sa[1]))
                check_conflict_free(addrs, 4)
                afr.append(ldmatrix(sa[0], addrs, 4, not a_kmajor))
            bfr: list = []
            for nt in range(0, plan.n_tiles, 2):
                x4 = nt + 1 < plan.n_tiles
                count = 4 if x4 else 2
                addrs = []
                for lane in range(32):
                    kk, c = b_lane_address(plan, b_kmajor, warp_n, lane, nt, ks, x4)
                    row, col = (c, kk) if b_kmajor else (kk, c)
                    addrs.append(swizzled_offset(row, col * eb, sb[1]))
                check_conflict_free(addrs, count)
                got = ldmatrix(sb[0], addrs, count, not b_kmajor)
                bfr += [[g[:2] for g in got], [g[2:] for g in got]][: 1 + x4]
            for mt, nt in itertools.product(range(plan.m_tiles), range(plan.n_tiles)):
                pa = np.full((16, kind.k), np.nan)
                pb = np.full((kind.k, 8), np.nan)
                for lane in range(32):
                    va = np.concatenate([elements(kind, r) for r in afr[mt][lane]])
                    vb = np.concatenate([elements(kind, r) for r in bfr[nt][lane]])
                    assert len(va) == 4 * per_reg and len(vb) == 2 * per_reg
                    for i, v in enumerate(va):
                        pa[isa_a(kind, lane, i)] = v
                    for i, v in enumerate(vb):
                        pb[isa_b(kind, lane, i)] = v
                assert not np.isnan(pa).any() and not np.isnan(pb).any()
                d = pa @ pb
                for lane in range(32):
                    for i in range(4):
                        acc[lane, acc_key(mt, nt, i)] += d[isa_c(lane, i)]
        for (lane, (ri, ci)), v in acc.items():
            row = (
                thread_index(rows_map, lane, warp) * rows_map.spt + rows_map.offset(ri, plan.m)
            ) % plan.m
            col = (
                thread_index(cols_map, lane, warp) * cols_map.spt + cols_map.offset(ci, plan.n)
            ) % plan.n
            assert np.isnan(result[row, col]) or result[row, col] == v
            result[row, col] = v
    return result


SHAPES = [(16, 16, 16), (16, 32, 32), (32, 16, 64), (64, 64, 32), (128, 64, 16), (16, 128, 64)]


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    "kind,a_kmajor,b_kmajor",
    [
        (MmaKind.F16, True, False),
        (MmaKind.F16, True, True),
        (MmaKind.F16, False, False),
        (MmaKind.F16, False, True),
        (MmaKind.TF32, True, True),
        (MmaKind.S8, True, True),
    ],
)
def test_simulated_cta_computes_a_times_b(kind, a_kmajor, b_kmajor, shape, num_warps):
    m, n, k = shape
    if k < kind.k:
        pytest.skip("K below the instruction's K")
    wm, wn = warp_grid(m, n, num_warps)
    acc = AccKind.S32 if kind is MmaKind.S8 else AccKind.F32
    plan = MmaPlan(kind, acc, 1, 0, m, n, k, wm, wn)
    rng = np.random.default_rng(m * 7 + n * 3 + k + num_warps)
    dt = DTYPES[kind]
    a = rng.integers(-8, 8, (m, k)).astype(dt)
    b = rng.integers(-8, 8, (k, n)).astype(dt)
    got = run_cta(plan, num_warps, a_kmajor, b_kmajor, a, b)
    np.testing.assert_array_equal(got, a.astype(np.float64) @ b.astype(np.float64))


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("shape", [(128, 64, 64), (128, 128, 32), (64, 16, 128), (16, 8 * 8, 16)])
@pytest.mark.parametrize("b_kmajor", [False, True])
def test_simulated_cta_reads_a_from_accumulator_layout_registers(shape, num_warps, b_kmajor):
    # a chain of dots (attention's p @ v): A is the earlier dot's [M, K] result, still in its
    # accumulator layout with every warp along M; its registers are used as the A fragments
    m, n, k = shape
    if m < 16 * num_warps:
        pytest.skip("fewer m16 tiles than warps: the plan keeps warps along N")
    plan = MmaPlan(MmaKind.F16, AccKind.F32, 1, 0, m, n, k, num_warps, 1)
    rng = np.random.default_rng(m + n + k + num_warps)
    a = rng.integers(-8, 8, (m, k)).astype(np.float16)
    b = rng.integers(-8, 8, (k, n)).astype(np.float16)
    got = run_cta(plan, num_warps, True, b_kmajor, a, b, a_registers=True)
    np.testing.assert_array_equal(got, a.astype(np.float64) @ b.astype(np.float64))


def test_warp_grid_uses_every_warp_when_the_tile_allows():
    assert warp_grid(128, 128, 4) == (2, 2)
    assert warp_grid(128, 256, 8) == (2, 4)
    assert warp_grid(16, 16, 4) == (1, 2)  # two warps replicate
    for m, n, w in itertools.product([16, 32, 64, 128, 256], [16, 32, 64, 256], [1, 2, 4, 8]):
        wm, wn = warp_grid(m, n, w)
        assert m % (16 * wm) == 0 and n % (8 * wn) == 0 and wm * wn <= w


@pytest.mark.parametrize("row_bytes", [16, 32, 64, 128, 256, 512])
def test_swizzle_is_a_permutation_of_16_byte_chunks(row_bytes):
    rows = 64
    seen = set()
    for r in range(rows):
        for c in range(0, row_bytes, 16):
            off = swizzled_offset(r, c, row_bytes)
            assert off % 16 == 0 and r * row_bytes <= off < (r + 1) * row_bytes
            seen.add(off)
    assert len(seen) == rows * row_bytes // 16


@pytest.mark.parametrize("row_bytes", [16, 32, 64, 128, 256, 512])
def test_swizzle_repeats_every_8_rows(row_bytes):
    # ldmatrix takes a lane's address once per operand and the other tiles as immediates
    # (mma_fragments.SharedFragments._load): 8 rows on is always 8 * row_bytes bytes on
    for r, c, j in itertools.product(range(16), range(0, row_bytes, 2), range(1, 5)):
        moved = swizzled_offset(r + 8 * j, c, row_bytes)
        assert moved == swizzled_offset(r, c, row_bytes) + 8 * j * row_bytes


@pytest.mark.parametrize("wm,wn", [(1, 1), (2, 2), (4, 1), (1, 4)])
def test_tiles_are_whole_8_row_steps_from_the_first(wm, wn):
    # the rows SharedFragments adds as an immediate: m tiles (A K-major), k steps (A M-major,
    # B N-major) and n tiles (B K-major) are 16*wm, K and 8*wn rows on from tile 0
    plan = MmaPlan(MmaKind.F16, AccKind.F32, 1, 0, 64 * wm, 32 * wn, 64, wm, wn)
    k = plan.kind.k
    for lane, mt, ks in itertools.product(range(32), range(plan.m_tiles), range(plan.k_steps)):
        row, col = a_lane_address(plan, True, 0, lane, mt, ks)
        assert (row, col) == (a_lane_address(plan, True, 0, lane, 0, ks)[0] + 16 * wm * mt, col)
        row, col = a_lane_address(plan, False, 0, lane, mt, ks)
        assert col == a_lane_address(plan, False, 0, lane, mt, 0)[1] + k * ks
    for lane, nt, ks in itertools.product(range(32), range(0, plan.n_tiles, 2), range(2)):
        x4 = nt + 1 < plan.n_tiles
        kk, col = b_lane_address(plan, True, 0, lane, nt, ks, x4)
        assert col == b_lane_address(plan, True, 0, lane, 0, ks, x4)[1] + 8 * wn * nt
        kk, col = b_lane_address(plan, False, 0, lane, nt, ks, x4)
        assert kk == b_lane_address(plan, False, 0, lane, nt, 0, x4)[0] + k * ks
