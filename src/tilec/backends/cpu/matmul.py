"""The CPU matrix-multiply kernel used by DotOp: C += A @ B, C a row-major stack buffer.

fp32 accumulation uses a register-tiled micro-kernel: an MR x (NV*VL) block of C stays in SIMD
registers (VL = the host's float vector width) while k runs, each step one broadcast of A times
NV vectors of B with fused multiply-adds; A and B are packed buffers or memory read in place
(operand.py), fp16 / bf16 widened as loaded. Other types (and odd shapes) use an i-k-j loop whose
contiguous innermost loop LLVM vectorizes. Rank-3 operands loop over the batch first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from llvmlite import ir

from ...ir.types import Element
from ..llvm import types as T
from ..llvm.intrinsics import call_same
from .lower import Lowering
from .nest import counted_loop
from .operand import Operand, Packed
from .scalar import cast, to_compute
from .tiles import BufferTile, MapTile, Scope, storage


def vector_registers(features: str, triple: str) -> int:
    """Architectural SIMD registers: 32 with AVX-512 and on AArch64, else 16."""
    if "+avx512f" in features or triple.startswith(("aarch64", "arm64")):
        return 32
    return 16


def vector_width(features: str) -> int:
    """fp32 lanes of the widest SIMD register the target has."""
    if "+avx512f" in features:
        return 16
    if "+avx" in features or "+avx2" in features:
        return 8
    return 4


def as_work(lw: Lowering, buf: BufferTile, work: BufferTile) -> BufferTile:
    """``buf`` converted to the accumulator's element type (one pass, so the kernel is uniform)."""
    if buf.elem == work.elem:
        return buf
    src, dst = buf.elem, work.elem

    def widen(b: ir.IRBuilder, v: list[ir.Value]) -> ir.Value:
        if src.is_floating():  # type: ignore[union-attr]
            x = to_compute(b, v[0], src)  # type: ignore[arg-type]
            return b.fpext(x, T.f64) if dst.name == "fp64" and x.type != T.f64 else x  # type: ignore[union-attr]
        return cast(b, v[0], src, dst)

    return lw.materialize(MapTile(buf.shape, dst, [buf], widen))


def fits_micro_kernel(lw: Lowering, c: BufferTile) -> bool:
    """Whether ``c`` (the accumulator) is multiplied by the register-tiled fp32 kernel."""
    n = c.shape[-1]
    vl = min(lw.vector_width, n)
    return str(c.elem) == "fp32" and len(c.shape) == 2 and vl >= 4 and n % vl == 0


def matmul(lw: Lowering, a: BufferTile, bm: BufferTile, c: BufferTile) -> None:
    a, bm = as_work(lw, a, c), as_work(lw, bm, c)
    if fits_micro_kernel(lw, c):
        micro_kernel(lw, Packed(a), Packed(bm), c)
    else:
        _simple(lw, a, bm, c)


@dataclass(frozen=True)
class Blocking:
    """The register block of the fp32 kernel: ``mr`` rows x ``nv`` vectors of ``vl`` lanes."""

    mr: int
    nv: int
    vl: int

    @property
    def width(self) -> int:
        return self.nv * self.vl


def blocking(lw: Lowering, m: int, n: int) -> Blocking:
    # 16 accumulators (4 rows x 4 vectors) measured best with 32 registers (AVX-512, znver4);
    # with 16 registers, 4 x 2 leaves room for the B vectors and the broadcast
    vl = min(lw.vector_width, n)
    mr = next(r for r in (4, 2, 1) if m % r == 0)
    widest = 4 if lw.vector_registers >= 32 else 2
    nv = next(v for v in (widest, 2, 1) if v <= widest and n % (v * vl) == 0)
    return Blocking(mr, nv, vl)


class Block:
    """One register block of C: its accumulators (stack slots that mem2reg keeps in vector
    registers) at rows ``rows`` and columns ``cols`` (i64 indices, one per row / vector)."""

    def __init__(self, lw: Lowering, bk: Blocking, rows: list[ir.Value], cols: list[ir.Value]):
        self.bk, self.rows, self.cols = bk, rows, cols
        self.vec = ir.VectorType(T.f32, bk.vl)
        self.accs = [[lw.slot(self.vec) for _ in range(bk.nv)] for _ in range(bk.mr)]

    def _c_ptr(self, b: ir.IRBuilder, c: BufferTile, r: int, v: int) -> ir.Value:
        lin = b.add(b.mul(self.rows[r], ir.Constant(T.i64, c.shape[1])), self.cols[v])
        return b.gep(c.addr, [lin], source_etype=T.f32)

    def load(self, b: ir.IRBuilder, c: BufferTile) -> None:
        for r, row in enumerate(self.accs):
            for v, acc in enumerate(row):
                b.store(b.load(self._c_ptr(b, c, r, v), typ=self.vec, align=4), acc)

    def store(self, b: ir.IRBuilder, c: BufferTile) -> None:
        for r, row in enumerate(self.accs):
            for v, acc in enumerate(row):
                b.store(b.load(acc, typ=self.vec), self._c_ptr(b, c, r, v), align=4)

    def multiply(
        self, b: ir.IRBuilder, a_rows: list[ir.Value], a_step: int, a_elem: Element, bm: Operand
    ) -> None:
        """accs += A[rows, :] @ B[:, cols]: ``a_rows`` point at each row's first element
        (``a_step`` elements apart along it); ``bm`` has unit step (rows load as vectors).
        fp16 / bf16 elements are widened to fp32 as they are loaded."""
        vec, vl = self.vec, self.bk.vl
        k_dim = bm.shape[0]
        a_t, b_t = storage(a_elem), storage(bm.elem)
        a_align, b_align = T.bit_width(a_t) // 8, T.bit_width(b_t) // 8  # element alignment
        b_vec = ir.VectorType(b_t, vl)
        splat_mask = ir.Constant(ir.VectorType(T.i32, vl), [0] * vl)
        with counted_loop(b, ir.Constant(T.i64, 0), ir.Constant(T.i64, k_dim), "mk") as k:
            b_row = bm.row(b, k)
            bv = [
                _widen(
                    b,
                    b.load(b.gep(b_row, [c], source_etype=b_t), typ=b_vec, align=b_align),
                    bm.elem,
                )
                for c in self.cols
            ]
            a_col = b.mul(k, ir.Constant(T.i64, a_step)) if a_step != 1 else k
            for r, row in enumerate(self.accs):
                av = b.load(b.gep(a_rows[r], [a_col], source_etype=a_t), typ=a_t, align=a_align)
                av = _widen(b, av, a_elem)
                one = b.insert_element(ir.Constant(vec, None), av, ir.Constant(T.i32, 0))
                splat = b.shuffle_vector(one, ir.Constant(vec, None), splat_mask)
                for v, acc in enumerate(row):
                    cur = b.load(acc, typ=vec)
                    b.store(call_same(b, "fmuladd", splat, bv[v], cur), acc)


def _widen(b: ir.IRBuilder, x: ir.Value, elem: Element) -> ir.Value:
    """fp16 / bf16 storage (a scalar or a vector) as fp32; fp32 as it is."""
    name = str(elem)
    if name == "fp32":
        return x
    lanes = x.type.count if isinstance(x.type, ir.VectorType) else None

    def of(t: ir.Type) -> ir.Type:
        return ir.VectorType(t, lanes) if lanes else t

    if name == "fp16":
        return b.fpext(x, of(T.f32))
    assert name == "bf16", f"no fp32 widening for {name}"
    wide = b.zext(x, of(T.i32))
    sixteen = ir.Constant(of(T.i32), [16] * lanes if lanes else 16)
    return b.bitcast(b.shl(wide, sixteen), of(T.f32))


WIDENED = ("fp16", "bf16", "fp32")  # operand types the fp32 kernel reads and widens itself


@contextlib.contextmanager
def each_block(lw: Lowering, bk: Blocking, m: int, n: int) -> Iterator[Block]:
    """Loops over the register blocks of an m x n accumulator; the body runs once per block."""
    b = lw.b
    zero = ir.Constant(T.i64, 0)
    with counted_loop(b, zero, ir.Constant(T.i64, m // bk.mr), "mi") as ib:
        i0 = b.mul(ib, ir.Constant(T.i64, bk.mr))
        rows = [b.add(i0, ir.Constant(T.i64, r)) for r in range(bk.mr)]
        with counted_loop(b, zero, ir.Constant(T.i64, n // bk.width), "nj") as jb:
            j0 = b.mul(jb, ir.Constant(T.i64, bk.width))
            cols = [b.add(j0, ir.Constant(T.i64, v * bk.vl)) for v in range(bk.nv)]
            yield Block(lw, bk, rows, cols)


def micro_kernel(lw: Lowering, a: Operand, bm: Operand, c: BufferTile) -> None:
    """``c += a @ bm`` for fp32 with ``c`` in registers block by block; ``bm`` has unit
    ``step`` (its rows are loaded as vectors), ``a`` any (its elements are broadcast)."""
    m, n = c.shape
    with each_block(lw, blocking(lw, m, n), m, n) as blk:
        a_rows = [a.row(lw.b, r) for r in blk.rows]
        blk.load(lw.b, c)
        blk.multiply(lw.b, a_rows, a.step, a.elem, bm)
        blk.store(lw.b, c)


def _simple(lw: Lowering, a: BufferTile, bm: BufferTile, c: BufferTile) -> None:
    b = lw.b
    batch = c.shape[0] if len(c.shape) == 3 else 1
    m, n = c.shape[-2], c.shape[-1]
    k_dim = a.shape[-1]
    zero = ir.Constant(T.i64, 0)
    with (
        counted_loop(b, zero, ir.Constant(T.i64, batch), "mb") as bi,
        counted_loop(b, zero, ir.Constant(T.i64, m), "mi") as i,
        counted_loop(b, zero, ir.Constant(T.i64, k_dim), "mk") as k,
    ):
        s = Scope(b)
        pre = (bi,) if len(c.shape) == 3 else ()
        av = s.get(a, (*pre, i, k))
        with counted_loop(b, zero, ir.Constant(T.i64, n), "mj") as j:
            s2 = Scope(b, parent=s)
            bv = s2.get(bm, (*pre, k, j))
            cp = c.element_ptr(s2, (*pre, i, j))
            cv = b.load(cp, typ=T.storage_type(c.elem))
            if c.elem.is_floating():  # type: ignore[union-attr]
                r = call_same(b, "fmuladd", av, bv, cv)
            else:
                r = b.add(cv, b.mul(av, bv))
            b.store(r, cp)
