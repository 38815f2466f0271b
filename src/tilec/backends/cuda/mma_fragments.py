"""Where an mma instruction's operand fragments come from: ldmatrix from shared memory, or
operand A's registers as they are when it is in the accumulator layout.

An m16n8k16 A fragment is four 32-bit words, each a pair of 16-bit elements: (rows g, k 2t..),
(rows g+8, k 2t..), (rows g, k 8+2t..), (rows g+8, k 8+2t..) of the instruction tile, which is
exactly where mma.py's accumulator layout puts a thread's column pairs (wgmma's register A
takes the same words). So a 16-bit tile in that layout, with every warp along M (a thread holds
all of K for its rows), is read straight from registers (dot_plans.register_a).
"""

from __future__ import annotations

from llvmlite import ir

from . import intrinsics as intr
from .lowering import Lowering, Tile
from .mma import MmaPlan, Staged, a_lane_address, b_lane_address, register_a_words
from .mma_expr import Expr
from .types import I8, I32


def ldmatrix(
    b: ir.IRBuilder, ptr: ir.Value, count: int, trans: bool, offset: int = 0
) -> list[ir.Value]:
    """ldmatrix as inline PTX with side effects: LLVM must neither hoist it above the barrier
    that publishes the staged operand nor merge it with the same load of another iteration.
    Shared-memory pointers are 32-bit (codegen_worker.OPTIONS: --nvptx-short-ptr); ``offset``
    bytes are added in the instruction's address (``[%r+1024]``)."""
    regs = ",".join(f"${i}" for i in range(count))
    at = f"${count}+{offset}" if offset else f"${count}"
    text = f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 {{{regs}}}, [{at}];"
    ret = ir.LiteralStructType([I32] * count)
    out = intr.asm(b, ret, text, ",".join(["=r"] * count + ["r"]), [ptr])
    return [b.extract_value(out, i) for i in range(count)]


class SharedFragments:
    """ldmatrix loads of one operand for one (batch, k step)."""

    def __init__(self, L: Lowering, plan: MmaPlan, s: Staged, base: ir.Value) -> None:
        self.L, self.plan, self.s, self.base = L, plan, s, base
        # lane addresses depend on the thread only: computed once, in the prologue
        p, memo = L.prologue, L.prologue_memo
        warp, self.lane = Expr(p, L.warp, memo), Expr(p, L.lane, memo)
        self.warp_m = (warp // plan.wn) % plan.wm
        self.warp_n = warp % plan.wn

    def _load(
        self, row: Expr | int, col: Expr | int, batch: int, count: int, rows_on: int = 0
    ) -> list[ir.Value]:
        """ldmatrix at (``row`` + ``rows_on``, ``col``). The swizzle repeats every 8 rows, so a
        multiple of 8 rows on is a constant number of bytes on: the lane's address (a
        prologue value) is shared by every tile along that axis and the rest is an immediate
        (``[%r+1024]``), as are the operand's and the batch's offsets."""
        s, eb, b = self.s, self.plan.kind.elem_bytes, self.L.b
        lane = Expr.of(self.L.prologue, s.at(row, col * eb)).v
        ptr = b.gep(self.base, [lane], source_etype=I8)
        const = s.offset + batch * s.nbytes + rows_on * s.row_bytes
        return ldmatrix(b, ptr, count, not self.s.kmajor, const)

    @property
    def _repeats(self) -> bool:
        """Whether 8 more rows are ``8 * row_bytes`` more bytes: plain swizzled rows, not
        wgmma's atoms or its permuted rows of A."""
        assert self.s.atom or self.s.width == self.s.row_bytes
        return not self.s.atom and not self.s.warps

    def a(self, mt: int, ks: int, batch: int) -> list[ir.Value]:
        plan, kmajor = self.plan, self.s.kmajor
        if not self._repeats:
            row, col = a_lane_address(plan, kmajor, self.warp_m, self.lane, mt, ks)
            return self._load(row, col, batch, 4) if kmajor else self._load(col, row, batch, 4)
        # K-major: smem rows are M, m tile mt is 16*wm rows on; M-major: smem rows are K and
        # columns M, k step ks is K rows on
        if kmajor:
            row, col = a_lane_address(plan, kmajor, self.warp_m, self.lane, 0, ks)
            return self._load(row, col, batch, 4, 16 * plan.wm * mt)
        row, col = a_lane_address(plan, kmajor, self.warp_m, self.lane, mt, 0)
        return self._load(col, row, batch, 4, plan.kind.k * ks)

    def b(self, nt: int, ks: int, batch: int, x4: bool) -> list[ir.Value]:
        plan, kmajor, count = self.plan, self.s.kmajor, 4 if x4 else 2
        if not self._repeats:
            k, col = b_lane_address(plan, kmajor, self.warp_n, self.lane, nt, ks, x4)
            return self._load(col, k, batch, count) if kmajor else self._load(k, col, batch, count)
        # K-major ([N][K]): n tile nt is 8*wn rows on; N-major ([K][N]): k step ks is K rows on
        if kmajor:
            k, col = b_lane_address(plan, kmajor, self.warp_n, self.lane, 0, ks, x4)
            return self._load(col, k, batch, count, 8 * plan.wn * nt)
        k, col = b_lane_address(plan, kmajor, self.warp_n, self.lane, nt, 0, x4)
        return self._load(k, col, batch, count, plan.kind.k * ks)


class RegisterFragments:
    """Operand A in registers, in the accumulator layout of the dot's plan (2-D or batched)."""

    def __init__(self, b: ir.IRBuilder, t: Tile, batched: bool) -> None:
        self.b, self.regs, self.batched = b, t.regs, batched

    def a(self, mt: int, ks: int, batch: int) -> list[ir.Value]:
        return [self._pair(batch, row, col) for row, col in register_a_words(mt, ks)]

    def _pair(self, batch: int, row: int, col: int) -> ir.Value:
        b, prefix = self.b, (batch,) if self.batched else ()
        lo = self.regs[(*prefix, row, col)]
        pair = ir.Constant(ir.VectorType(lo.type, 2), None)
        pair = b.insert_element(pair, lo, ir.Constant(I32, 0))
        pair = b.insert_element(pair, self.regs[(*prefix, row, col + 1)], ir.Constant(I32, 1))
        return b.bitcast(pair, I32)
