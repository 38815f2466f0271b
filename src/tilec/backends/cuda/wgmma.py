"""wgmma (sm_90a): the shared-memory descriptors, instruction offsets and result registers.

A wgmma plan (mma.choose) keeps mma.sync's accumulator layout with every warp along M
(``wm = num_warps``, ``wn = 1``): warp ``w4`` of warpgroup ``wg`` then owns the rows
``16*w4 + g + 8*h`` of each 64-row slab its instructions cover, once operand A's rows are
stored permuted (mma.wgmma_row). Each thread's m64nNk16 results ``d[4*nt + 2*h + j]`` are
accumulator register (2*mi + h, 2*nt + j).

Operands are staged as mma.staging lays them out with ``atom`` (32, 64 or 128 bytes: the
swizzle mode) so that a row wider than the atom is stored block after block. A descriptor names
one instruction's operand: its start address, the stride between 8-row groups (SBO, 8 atoms),
and the stride between column blocks (LBO, one whole block). K-major operands advance 32 bytes
of K per k16 step; an MN-major B (``tnspB``, 16-bit types only) advances 16 rows.
"""

from __future__ import annotations

from .mma import Engine, MmaPlan, Staged

_SWIZZLE_MODE = {128: 1, 64: 2, 32: 3}


def usable(plan: MmaPlan, a: Staged, b: Staged) -> bool:
    """Whether the staged operands let the dot run on wgmma."""
    return plan.engine is Engine.WGMMA and a.kmajor and a.warps == plan.wm and b.atom > 0


def descriptor_high(s: Staged) -> int:
    """The descriptor's fields above the start address: LBO, SBO and the swizzle mode."""
    lbo = s.rows * s.width  # from one column block to the next
    sbo = 8 * s.width  # from one 8-row group to the next
    return (lbo >> 4) << 16 | (sbo >> 4) << 32 | _SWIZZLE_MODE[s.width] << 62


def a_offset(s: Staged, slab: int, ks: int) -> int:
    """Bytes from A's base to the first byte instruction slab ``slab`` reads at k step ``ks``
    (A is K-major: 64 rows of the slab, 32 bytes of K)."""
    return _kmajor_offset(s, 64 * slab, 32 * ks)


def b_offset(s: Staged, ks: int) -> int:
    """Bytes from B's base to what k step ``ks`` reads (all N columns)."""
    if s.kmajor:
        return _kmajor_offset(s, 0, 32 * ks)
    return 16 * ks * s.width  # rows of K, each ``width`` bytes in every column block


def _kmajor_offset(s: Staged, row: int, k_bytes: int) -> int:
    # rows are multiples of 8 and k steps stay inside one atom: the swizzle phase is 0 there
    block, within = divmod(k_bytes, s.width)
    return block * s.rows * s.width + row * s.width + within


def acc_keys(plan: MmaPlan, mi: int) -> list[tuple[int, int]]:
    """Accumulator register keys of instruction ``mi``'s results d0, d1, ... in order."""
    return [(2 * mi + (i // 2) % 2, 2 * (i // 4) + i % 2) for i in range(plan.n // 2)]


def instruction(
    plan: MmaPlan, b_kmajor: bool, registers_a: bool = False, accumulate: bool = True
) -> str:
    """The PTX of one m64nNk16 with accumulators ``$0..``, then A (a descriptor, or four
    registers) and B's descriptor; the accumulator is read (scale-d 1) unless ``accumulate``
    is off (D = A @ B: the first k step into an accumulator of zeros, whose registers then
    need no zeros written first); B is transposed when stored MN-major. A in registers takes
    no transpose flag."""
    count = plan.n // 2
    regs = ",".join(f"${i}" for i in range(count))
    ty = plan.kind.ptx
    if registers_a:
        a, b, flags = f"{{${count},${count + 1},${count + 2},${count + 3}}}", f"${count + 4}", ""
    else:
        a, b, flags = f"${count}", f"${count + 1}", " 0,"
    return (
        f"{{\n.reg .pred p;\nsetp.ne.b32 p, {int(accumulate)}, 0;\n"
        f"wgmma.mma_async.sync.aligned.m64n{plan.n}k16.f32.{ty}.{ty} "
        f"{{{regs}}}, {a}, {b}, p, 1, 1,{flags} {0 if b_kmajor else 1};\n}}"
    )
