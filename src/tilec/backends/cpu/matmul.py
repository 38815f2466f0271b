"""The CPU matrix-multiply kernel used by DotOp: C += A @ B on row-major stack buffers.

fp32 uses a register-tiled micro-kernel: an MR x (NV*VL) block of C stays in SIMD registers
(VL = the host's float vector width) while k runs, each step one broadcast of A times NV vectors
of B with fused multiply-adds. Other types (and odd shapes) use an i-k-j loop whose contiguous
innermost loop LLVM vectorizes. Rank-3 operands loop over the batch first.
"""

from __future__ import annotations

from llvmlite import ir

from ..llvm import types as T
from ..llvm.intrinsics import call_same
from .lower import Lowering
from .nest import counted_loop
from .operand import Operand, Packed
from .scalar import cast, to_compute
from .tiles import BufferTile, MapTile, Scope


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


def micro_kernel(lw: Lowering, a: Operand, bm: Operand, c: BufferTile) -> None:
    """``c += a @ bm`` for fp32 with ``c`` in registers block by block; ``bm`` has unit
    ``step`` (its rows are loaded as vectors), ``a`` any (its elements are broadcast)."""
    b = lw.b
    m, n, k_dim = c.shape[0], c.shape[1], a.shape[1]
    vl = min(lw.vector_width, n)
    # 16 accumulators (4 rows x 4 vectors) measured best with 32 registers (AVX-512, znver4);
    # with 16 registers, 4 x 2 leaves room for the B vectors and the broadcast
    mr = next(r for r in (4, 2, 1) if m % r == 0)
    widest = 4 if lw.vector_registers >= 32 else 2
    nv = next(v for v in (widest, 2, 1) if v <= widest and n % (v * vl) == 0)
    vec = ir.VectorType(T.f32, vl)
    accs = [[lw.slot(vec) for _ in range(nv)] for _ in range(mr)]
    zero = ir.Constant(T.i64, 0)
    a_step = ir.Constant(T.i64, a.step)

    def c_ptr(row: ir.Value, col: ir.Value) -> ir.Value:
        lin = b.add(b.mul(row, ir.Constant(T.i64, n)), col)
        return b.gep(c.addr, [lin], source_etype=T.f32)

    with counted_loop(b, zero, ir.Constant(T.i64, m // mr), "mi") as ib:
        i0 = b.mul(ib, ir.Constant(T.i64, mr))
        rows = [b.add(i0, ir.Constant(T.i64, r)) for r in range(mr)]
        a_rows = [a.row(b, r) for r in rows]
        with counted_loop(b, zero, ir.Constant(T.i64, n // (nv * vl)), "nj") as jb:
            j0 = b.mul(jb, ir.Constant(T.i64, nv * vl))
            cols = [b.add(j0, ir.Constant(T.i64, v * vl)) for v in range(nv)]
            for r in range(mr):
                for v in range(nv):
                    b.store(b.load(c_ptr(rows[r], cols[v]), typ=vec, align=4), accs[r][v])
            with counted_loop(b, zero, ir.Constant(T.i64, k_dim), "mk") as k:
                b_row = bm.row(b, k)
                bv = [
                    b.load(b.gep(b_row, [cols[v]], source_etype=T.f32), typ=vec, align=4)
                    for v in range(nv)
                ]
                a_col = b.mul(k, a_step) if a.step != 1 else k
                for r in range(mr):
                    av = b.load(b.gep(a_rows[r], [a_col], source_etype=T.f32), typ=T.f32)
                    splat = b.shuffle_vector(
                        b.insert_element(ir.Constant(vec, None), av, ir.Constant(T.i32, 0)),
                        ir.Constant(vec, None),
                        ir.Constant(ir.VectorType(T.i32, vl), [0] * vl),
                    )
                    for v in range(nv):
                        cur = b.load(accs[r][v], typ=vec)
                        b.store(call_same(b, "fmuladd", splat, bv[v], cur), accs[r][v])
            for r in range(mr):
                for v in range(nv):
                    b.store(b.load(accs[r][v], typ=vec), c_ptr(rows[r], cols[v]), align=4)


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
