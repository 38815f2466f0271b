"""NVPTX intrinsics and inline PTX that tilec emits, by their exact LLVM 22 spellings.

Only names listed in notes/nvptx.md as selecting on sm_80 and sm_90a are used here: anything else
can abort LLVM inside the Python process. Target-independent intrinsics (``llvm.fma``,
``llvm.ctpop`` ...) are llvm/intrinsics.py's; everything is declared through its declarer.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ..llvm import intrinsics as shared
from ..llvm import types as shared_types
from .types import F32, I32, VOID


def declare(b: ir.IRBuilder, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    """The function ``name`` in ``b``'s module, declared on first use."""
    return shared.declare(b.module, name, ret, args)


def sreg(b: ir.IRBuilder, reg: str) -> ir.Value:
    """A special register such as ``tid.x`` or ``ctaid.y``."""
    return b.call(declare(b, f"llvm.nvvm.read.ptx.sreg.{reg}", I32, []), [])


def barrier(b: ir.IRBuilder) -> None:
    b.call(declare(b, "llvm.nvvm.barrier.cta.sync.aligned.all", VOID, [I32]), [ir.Constant(I32, 0)])


def shuffle_xor(b: ir.IRBuilder, v: ir.Value, lane_mask: int) -> ir.Value:
    """``shfl.sync.bfly`` of any 8..64-bit value (split or widened to 32-bit lanes)."""
    fn = declare(b, "llvm.nvvm.shfl.sync.bfly.i32", I32, [I32, I32, I32, I32])
    args = (ir.Constant(I32, -1), ir.Constant(I32, lane_mask), ir.Constant(I32, 31))

    def shfl32(x: ir.Value) -> ir.Value:
        return b.call(fn, [args[0], x, args[1], args[2]])

    return _through_i32(b, v, shfl32)


def _through_i32(b: ir.IRBuilder, v: ir.Value, op: Callable[[ir.Value], ir.Value]) -> ir.Value:
    """``op`` of a 32-bit value applied to ``v`` word by word (narrower values widened)."""
    ty = v.type
    if isinstance(ty, ir.PointerType):
        raise TypeError("cannot shuffle pointers")
    bits = shared_types.bit_width(ty)
    as_int = v if isinstance(ty, ir.IntType) else b.bitcast(v, ir.IntType(bits))
    if bits == 64:
        vec = b.bitcast(as_int, ir.VectorType(I32, 2))
        lo = op(b.extract_element(vec, ir.Constant(I32, 0)))
        hi = op(b.extract_element(vec, ir.Constant(I32, 1)))
        vec = b.insert_element(
            b.insert_element(ir.Constant(ir.VectorType(I32, 2), None), lo, ir.Constant(I32, 0)),
            hi,
            ir.Constant(I32, 1),
        )
        out = b.bitcast(vec, ir.IntType(64))
    elif bits == 32:
        out = op(as_int)
    else:
        out = b.trunc(op(b.zext(as_int, I32)), ir.IntType(bits))
    return out if isinstance(ty, ir.IntType) else b.bitcast(out, ty)


def ex2_approx(b: ir.IRBuilder, x: ir.Value, ftz: bool = False) -> ir.Value:
    """2**x (ex2.approx.f32); ``ftz``: a result below 2**-126 is flushed to zero, one MUFU
    instruction where the other form scales subnormal results around it."""
    name = "llvm.nvvm.ex2.approx.ftz.f" if ftz else "llvm.nvvm.ex2.approx.f"
    return b.call(declare(b, name, F32, [F32]), [x])


def lg2_approx(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.call(declare(b, "llvm.nvvm.lg2.approx.f", F32, [F32]), [x])


def asm(
    b: ir.IRBuilder,
    ret: ir.Type,
    text: str,
    constraints: str,
    args: list[ir.Value],
    side_effect: bool = True,
) -> ir.Value:
    fnty = ir.FunctionType(ret, [a.type for a in args])
    return b.asm(fnty, text, constraints, args, side_effect)


def shift64(b: ir.IRBuilder, left: bool, signed: bool, x: ir.Value, amount: ir.Value) -> ir.Value:
    """PTX's own 64-bit ``shl``/``shr`` of ``x`` by an i32 ``amount`` (amounts >= 64 give 0, or
    the sign fill), opaque to LLVM."""
    op = "shl.b64" if left else "shr.s64" if signed else "shr.u64"
    return asm(b, x.type, f"{op} $0, $1, $2;", "=l,l,r", [x, amount], side_effect=False)


_MOV = {16: ("b16", "h"), 32: ("b32", "r"), 64: ("b64", "l")}


def mov(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``x`` (an i16, i32 or i64) through a PTX ``mov``: the same bits, which LLVM's optimizer
    cannot look through (ptxas drops the move)."""
    suffix, con = _MOV[x.type.width]
    return asm(b, x.type, f"mov.{suffix} $0, $1;", f"={con},{con}", [x], side_effect=False)


def cvt_rn_pair(
    b: ir.IRBuilder, lo: ir.Value, hi: ir.Value, kind: str, elem: ir.Type
) -> tuple[ir.Value, ir.Value]:
    """Two fp32 values rounded to nearest-even to ``kind`` (``f16x2``, ``bf16x2``) by one
    ``cvt.rn`` (sm_80+): the same bits as two scalar conversions."""
    text = f"cvt.rn.{kind}.f32 $0, $1, $2;"
    word = asm(b, I32, text, "=r,f,f", [hi, lo], side_effect=False)
    both = b.bitcast(word, ir.VectorType(elem, 2))
    return b.extract_element(both, ir.Constant(I32, 0)), b.extract_element(
        both, ir.Constant(I32, 1)
    )


def fence_proxy_async(b: ir.IRBuilder) -> None:
    """Order this thread's shared-memory writes (st.shared, cp.async) before reads by the async
    proxy (wgmma, bulk copies) that a following barrier publishes them to."""
    b.call(declare(b, "llvm.nvvm.fence.proxy.async.shared_cta", ir.VoidType(), []), [])
