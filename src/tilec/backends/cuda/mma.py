"""mma.sync layouts: which `tl.dot`s run on tensor cores, and where their fragments live.

The accumulator layout is an ordinary :class:`Blocked` layout, so every other rule (stores,
elementwise epilogues, reductions) reads it without conversion: a warp's lanes split as 8 groups
of 4 (``g = lane // 4`` along M, ``t = lane % 4`` along N, two adjacent columns each), warps
tile ``wm`` x ``wn``. One m16n8 instruction tile of a warp takes its physical rows 0-7 from
register row ``2*mt`` and rows 8-15 from ``2*mt + 1`` (logical rows ``warp_m*8 + g + i*8*wm``);
any consistent row permutation is fine for a matrix product as long as A's fragments follow it.
The pure functions below are the index math the lowering emits, simulated by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from llvmlite import ir

from ...ir import ops as O
from ...ir.types import ScalarType, TileType, element_of
from .layout import TRIVIAL, Blocked, DimMap

# an int, or an i32 IR value with the same operators (mma_expr.Expr): the index math below is
# evaluated on ints by the tests and emitted as IR by the lowering
Index = Any


class MmaKind(Enum):
    """Operand type of one mma.sync instruction: (PTX type, K of the instruction, bytes)."""

    F16 = ("f16", 16, 2)
    BF16 = ("bf16", 16, 2)
    TF32 = ("tf32", 8, 4)
    S8 = ("s8", 32, 1)
    U8 = ("u8", 32, 1)

    @property
    def ptx(self) -> str:
        return self.value[0]

    @property
    def k(self) -> int:
        return self.value[1]

    @property
    def elem_bytes(self) -> int:
        return self.value[2]


class Engine(Enum):
    """The instructions a plan runs on: mma.sync (a warp, fragments from ldmatrix) or, on
    sm_90a, wgmma (a warpgroup of four warps, operands read from shared memory; wgmma.py)."""

    MMA_SYNC = "mma.sync"
    WGMMA = "wgmma"


class AccKind(Enum):
    F32 = "f32"
    F16 = "f16"
    S32 = "s32"


@dataclass(frozen=True)
class MmaPlan:
    """One dot on tensor cores: instruction kind, tile sizes and the warp grid."""

    kind: MmaKind
    acc: AccKind
    passes: int  # 3 for tf32x3 (big*big + big*small + small*big), else 1
    batch: int  # 0 for a 2-D dot
    m: int
    n: int
    k: int
    wm: int
    wn: int
    engine: Engine = Engine.MMA_SYNC

    @property
    def m_tiles(self) -> int:
        """m16 instruction tiles per warp."""
        return self.m // (16 * self.wm)

    @property
    def n_tiles(self) -> int:
        """n8 instruction tiles per warp."""
        return self.n // (8 * self.wn)

    @property
    def k_steps(self) -> int:
        return self.k // self.kind.k

    def layout(self) -> Blocked:
        return acc_layout(self.batch > 0, self.wm, self.wn)


def acc_layout(batched: bool, wm: int, wn: int) -> Blocked:
    rows = DimMap(spt=1, tpw=8, lane_stride=4, wpc=wm, warp_stride=wn)
    cols = DimMap(spt=2, tpw=4, lane_stride=1, wpc=wn, warp_stride=1)
    if batched:
        return Blocked((TRIVIAL, rows, cols), (2, 1, 0))
    return Blocked((rows, cols), (1, 0))


# where a swizzled operand read by wgmma starts: its swizzle repeats every 8 rows of 128 bytes
ATOM_ALIGN = 1024


@dataclass(frozen=True)
class Staged:
    """One operand in shared memory: ``rows`` x ``row_bytes`` per batch entry, its 16-byte
    chunks swizzled (``swizzled_offset``), at ``offset`` bytes from a base."""

    offset: int
    kmajor: bool  # K is the contiguous axis (else M for A, N for B: ldmatrix .trans)
    row_axis: int  # logical axis (of the operand tile) along smem rows
    col_axis: int  # logical axis contiguous in smem
    rows: int
    row_bytes: int
    # bytes of one swizzled row: a wider row is stored as blocks of ``atom`` bytes of every
    # row, block after block (the layout wgmma reads); 0: the row is one block
    atom: int = 0
    # operand A of a wgmma plan for this many warps: its rows are permuted (wgmma_row)
    warps: int = 0

    @property
    def nbytes(self) -> int:
        return self.rows * self.row_bytes

    @property
    def width(self) -> int:
        return self.atom or self.row_bytes

    def at(self, row: Index, col_bytes: Index) -> Index:
        """Byte offset of (logical ``row``, byte ``col_bytes``) from the operand's base."""
        if self.warps:
            row = wgmma_row(row, self.warps)
        width = self.width
        if width == self.row_bytes:
            return swizzled_offset(row, col_bytes, width)
        block = (col_bytes // width) * (self.rows * width)
        return swizzled_offset(row, col_bytes % width, width) + block


def staging(
    shape: tuple[int, ...], contiguous: int, is_a: bool, plan: MmaPlan, offset: int
) -> Staged:
    """Where operand A (``is_a``) or B of ``shape`` goes in shared memory. 16-bit operands keep
    the axis that is ``contiguous`` in registers (ldmatrix ``.trans`` reads the other way
    round); 8- and 32-bit fragments only come K-contiguous. For a wgmma plan rows are stored
    in swizzle atoms of at most 128 bytes and A's rows permuted (wgmma.py); an A stored M-major
    stays as it is: ldmatrix reads it and the dot runs on mma.sync."""
    kind = plan.kind
    rank = len(shape)
    k_axis = rank - 1 if is_a else rank - 2
    other = rank - 2 if is_a else rank - 1
    kmajor = kind.elem_bytes != 2 or contiguous == k_axis
    col, row = (k_axis, other) if kmajor else (other, k_axis)
    s = Staged(offset, kmajor, row, col, shape[row], shape[col] * kind.elem_bytes)
    if plan.engine is not Engine.WGMMA or (is_a and not kmajor):
        return s
    return replace(s, atom=min(s.row_bytes, 128), warps=plan.wm if is_a else 0)


@dataclass(frozen=True)
class SharedOperand:
    """A dot operand a pipelined loop copied into shared memory in ``staged``'s layout, at
    ``base`` (this iteration's stage slot): the dot reads it with ldmatrix as it is."""

    staged: Staged
    base: ir.Value


def warp_grid(m: int, n: int, num_warps: int) -> tuple[int, int]:
    """Warps along M and N: double whichever side has more instruction tiles per warp left;
    warps that do not fit replicate (the layout leaves their warp bits free)."""
    wm = wn = 1
    while wm * wn < num_warps:
        more_m = m // (16 * wm) >= n // (8 * wn)
        if more_m and m >= 32 * wm:
            wm *= 2
        elif n >= 16 * wn:
            wn *= 2
        elif m >= 32 * wm:
            wm *= 2
        else:
            break
    return wm, wn


def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


_TF32 = (O.InputPrecision.TF32, O.InputPrecision.TF32X3)


def _kind(
    a: ScalarType, out: ScalarType, precision: O.InputPrecision
) -> tuple[MmaKind, AccKind] | None:
    name = a.name
    if name in ("fp16", "bf16") and out.name == "fp32":
        return (MmaKind.F16 if name == "fp16" else MmaKind.BF16), AccKind.F32
    if name == "fp16" and out.name == "fp16":
        return MmaKind.F16, AccKind.F16
    if name == "fp32" and out.name == "fp32" and precision in _TF32:
        return MmaKind.TF32, AccKind.F32
    if a.is_int() and a.bits == 8 and out.is_int() and out.bits == 32:
        return (MmaKind.S8 if a.is_int_signed() else MmaKind.U8), AccKind.S32
    return None


def choose(
    op: O.DotOp, num_warps: int, arch: int, wgmma: bool = False, rows: bool = False
) -> MmaPlan | None:
    """The tensor-core plan for ``op``, or None where the FMA path must run it (before sm_80,
    an ieee fp32 dot, fp64, bf16 accumulators, small or odd shapes). Large accumulators stay
    on tensor cores: the FMA path would hold the same registers and run far slower. With
    ``wgmma`` (sm_90a) the dots wgmma can run get a warpgroup plan. ``rows``: put every warp
    along M where M has an m16 tile for each (a dot in a chain, dot_plans.py)."""
    if arch < 80:
        return None
    a_t, acc_t = op.operands[0].type, op.operands[2].type
    if not isinstance(a_t, TileType) or not isinstance(acc_t, TileType):
        return None
    a_elem, out_elem = element_of(a_t), element_of(acc_t)
    if not isinstance(a_elem, ScalarType) or not isinstance(out_elem, ScalarType):
        return None
    kinds = _kind(a_elem, out_elem, op.input_precision)
    if kinds is None:
        return None
    kind, acc = kinds
    *batch, m, k = a_t.shape
    n = acc_t.shape[-1]
    if m < 16 or n < 16 or k < max(16, kind.k) or not all(_pow2(x) for x in (m, n, k)):
        return None
    wm, wn = (num_warps, 1) if rows and m >= 16 * num_warps else warp_grid(m, n, num_warps)
    passes = 3 if op.input_precision is O.InputPrecision.TF32X3 and kind is MmaKind.TF32 else 1
    plan = MmaPlan(kind, acc, passes, batch[0] if batch else 0, m, n, k, wm, wn)
    return (_warpgroup_plan(plan, num_warps) or plan) if wgmma else plan


# wgmma m64nNk16 takes N up to 256
WGMMA_MAX_N = 256


def _warpgroup_plan(plan: MmaPlan, num_warps: int) -> MmaPlan | None:
    """``plan`` on wgmma (every warp along M), or None where wgmma cannot run it: tf32 and
    8-bit kinds, fp16 accumulators, batched dots, M not whole 64-row slabs per warpgroup."""
    if plan.kind not in (MmaKind.F16, MmaKind.BF16) or plan.acc is not AccKind.F32:
        return None
    if plan.batch or num_warps not in (4, 8):
        return None
    if plan.m % (64 * (num_warps // 4)) or plan.n > WGMMA_MAX_N or plan.k % 16:
        return None
    return replace(plan, wm=num_warps, wn=1, engine=Engine.WGMMA)


# -- index math (shared by the lowering and the CPU simulation of the tests) --------------------


def acc_row(plan: MmaPlan, warp_m: Index, group: Index, reg: int) -> Index:
    """Logical row of accumulator register row ``reg`` (``2*mt + half``) in a thread of group
    ``group`` (lane // 4) of warp row ``warp_m``."""
    return warp_m * 8 + group + reg * 8 * plan.wm


def tile_col(plan: MmaPlan, warp_n: Index, nt: int) -> Index:
    """First logical column of the warp's n8 instruction tile ``nt``."""
    return warp_n * 8 + nt * 8 * plan.wn


def a_lane_address(
    plan: MmaPlan, kmajor: bool, warp_m: Index, lane: Index, mt: int, ks: int
) -> tuple[Index, Index]:
    """(row, column) of the A operand [M, K] where ``lane`` points ldmatrix.x4 for instruction
    tile (mt, ks): matrices 0..3 are (rows 0-7, k lo), (rows 8-15, k lo), (rows 0-7, k hi),
    (rows 8-15, k hi), giving fragment registers a0..a3 in order. K-major storage reads one
    16-byte row of each matrix per lane; M-major (16-bit only, ldmatrix .trans) one row of k."""
    q, r = lane // 8, lane % 8
    half_k = plan.kind.k // 2
    if kmajor:
        return acc_row(plan, warp_m, r, 2 * mt + q % 2), ks * plan.kind.k + (q // 2) * half_k
    return acc_row(plan, warp_m, 0, 2 * mt + q % 2), ks * plan.kind.k + (q // 2) * 8 + r


def b_lane_address(
    plan: MmaPlan, kmajor: bool, warp_n: Index, lane: Index, nt: int, ks: int, x4: bool
) -> tuple[Index, Index]:
    """(k, column) of the B operand [K, N] where ``lane`` points ldmatrix for n tiles ``nt``
    (and ``nt + 1`` with x4): matrices are (nt, k lo), (nt, k hi), (nt+1, k lo), (nt+1, k hi),
    giving b0, b1 of each tile. K-major storage ([N][K]) reads rows of n; N-major ([K][N], 16-bit
    only, .trans) rows of k."""
    q, r = (lane // 8, lane % 8) if x4 else ((lane % 16) // 8, lane % 8)
    tile = nt + q // 2
    half_k = plan.kind.k // 2
    if kmajor:
        return ks * plan.kind.k + (q % 2) * half_k, tile_col(plan, warp_n, tile) + r
    return ks * plan.kind.k + (q % 2) * 8 + r, tile_col(plan, warp_n, tile)


def acc_key(mt: int, nt: int, i: int) -> tuple[int, int]:
    """Accumulator register key (row reg, column reg) of mma result register ``i`` (c0..c3)."""
    return 2 * mt + i // 2, 2 * nt + i % 2


def register_a_words(mt: int, ks: int) -> list[tuple[int, int]]:
    """Operand A of a 16-bit plan held in the accumulator layout (dot_plans.register_a): the
    register key (row reg, column reg) of the first element of each fragment word a0..a3 of
    instruction tile (``mt``, k step ``ks``); the word's second element is the next column
    register. Rows g and g+8 are register rows 2*mt and 2*mt + 1, the k halves column pairs
    4*ks and 4*ks + 2: the accumulator's column pairs are m16n8k16's A pairs."""
    return [(2 * mt + h, 4 * ks + 2 * hi) for hi in (0, 1) for h in (0, 1)]


def swizzled_offset(row: Index, col_bytes: Index, row_bytes: int) -> Index:
    """Byte offset of (``row``, byte ``col_bytes``) in a shared-memory matrix of ``row_bytes``
    per row (a power of two >= 16), its 16-byte chunks XOR-permuted by the row so that the
    eight rows an ldmatrix reads at one column land in eight different 16-byte bank groups.

    The lowering emits exactly this arithmetic on IR values; the tests evaluate it on ints."""
    chunks = row_bytes // 16
    if chunks >= 8:
        phase = row % 8
    else:
        phase = (row // (8 // chunks)) % chunks
    return row * row_bytes + ((col_bytes // 16) ^ phase) * 16 + col_bytes % 16


def wgmma_row(row: Index, warps: int) -> Index:
    """The shared-memory row of operand A's logical ``row`` for a wgmma plan of ``warps`` warps.

    The accumulator keeps mma.sync's layout (warps along M: logical row ``8*warp + g + 8*warps*r``
    in register row ``r``), while wgmma gives warp ``w4`` of warpgroup ``wg`` the rows
    ``16*w4 + g + 8*h`` of the 64-row slab its descriptor names. Register row ``r = 2*mi + h``
    is instruction ``mi``'s half ``h``; slab ``mi*groups + wg`` starts at row ``64*(mi*groups +
    wg)``. Storing A's rows so makes each thread's results land in the registers the layout
    says. The 8 rows of a group stay together, so 16-byte chunks are never split."""
    groups = warps // 4
    g = row % 8
    w = (row // 8) % warps
    r = row // (8 * warps)
    h, mi = r % 2, r // 2
    return (mi * groups + w // 4) * 64 + (w % 4) * 16 + h * 8 + g
