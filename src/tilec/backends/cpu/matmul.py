"""The CPU matrix-multiply kernel used by DotOp: C += A @ B on row-major stack buffers.

Loop order i, k, j keeps the innermost loop contiguous in B and C, so LLVM vectorizes it with
fused multiply-adds; rank-3 operands loop over the batch first.
"""

from __future__ import annotations

from llvmlite import ir

from ..llvm import types as T
from ..llvm.intrinsics import call_same
from .lower import Lowering
from .nest import counted_loop
from .scalar import cast, to_compute
from .tiles import BufferTile, Scope


def _widen(b: ir.IRBuilder, x: ir.Value, buf: BufferTile, work: BufferTile) -> ir.Value:
    src, dst = buf.elem, work.elem
    if src == dst:
        return x
    if src.is_floating():  # type: ignore[union-attr]
        x = to_compute(b, x, src)  # type: ignore[arg-type]
        return b.fpext(x, T.f64) if dst.name == "fp64" and x.type != T.f64 else x  # type: ignore[union-attr]
    return cast(b, x, src, dst)


def matmul(lw: Lowering, a: BufferTile, bm: BufferTile, c: BufferTile) -> None:
    b = lw.b
    batch = c.shape[0] if len(c.shape) == 3 else 1
    m, n = c.shape[-2], c.shape[-1]
    k_dim = a.shape[-1]
    zero = ir.Constant(T.i64, 0)
    with counted_loop(b, zero, ir.Constant(T.i64, batch), "mb") as bi:
        with counted_loop(b, zero, ir.Constant(T.i64, m), "mi") as i:
            with counted_loop(b, zero, ir.Constant(T.i64, k_dim), "mk") as k:
                s = Scope(b)
                pre = (bi,) if len(c.shape) == 3 else ()
                av = _widen(b, s.get(a, (*pre, i, k)), a, c)
                with counted_loop(b, zero, ir.Constant(T.i64, n), "mj") as j:
                    s2 = Scope(b, parent=s)
                    bv = _widen(b, s2.get(bm, (*pre, k, j)), bm, c)
                    cp = c.element_ptr(s2, (*pre, i, j))
                    cv = b.load(cp, typ=T.storage_type(c.elem))
                    if c.elem.is_floating():  # type: ignore[union-attr]
                        r = call_same(b, "fmuladd", av, bv, cv)
                    else:
                        r = b.add(cv, b.mul(av, bv))
                    b.store(r, cp)
