"""Elementwise math on one register: fast NVPTX instructions where exact enough, else libdevice.

Never emits ``llvm.exp/log/log2/pow`` or non-``afn`` ``sin/cos/tanh``: LLVM 22 cannot select them
for NVPTX and aborts. exp/log use ex2.approx/lg2.approx with log2(e)/ln(2) scaling (as Triton
does); f16/bf16 compute in f32. Everything else calls ``__nv_*`` from libdevice, linked later.
Which of these a function takes is its row of llvm/math_table.py.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.types import ScalarType
from ..llvm import exact_math, math_table
from ..llvm import intrinsics as llvm_intr
from ..llvm.math_table import Via
from . import intrinsics as intr
from .types import F32, F64, I32, is_float

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


def apply(
    b: ir.IRBuilder,
    fn: str,
    args: list[ir.Value],
    elem: ScalarType,
    fast: bool,
    arch: int = 80,
    flush_exp2: bool = True,
) -> ir.Value:
    """``fn`` applied to one element of type ``elem``; ``flush_exp2``: fp32 exp2 results below
    2**-126 become zero (Triton's ``enable_reflect_ftz``, on by default)."""
    if elem.is_int():
        return exact_math.integer(b, fn, args, elem)
    if fn in exact_math.PREDICATES:
        return exact_math.predicate(b, fn, args[0])
    if elem.bits < 32 and not math_table.row(fn).exact16:
        wide = [b.fpext(a, F32) if is_float(a.type) else a for a in args]
        out = _float(b, fn, wide, 32, fast, arch, flush_exp2)
        return b.fptrunc(out, args[0].type) if is_float(out.type) else out
    return _float(b, fn, args, elem.bits, fast, arch, flush_exp2)


def _float(
    b: ir.IRBuilder,
    fn: str,
    args: list[ir.Value],
    bits: int,
    fast: bool,
    arch: int,
    flush_exp2: bool,
) -> ir.Value:
    entry = math_table.row(fn).cuda
    if entry is None:
        raise UnsupportedFeature(f"math function {fn!r} on the CUDA backend")
    if entry.via is Via.INTRINSIC:
        return llvm_intr.call(b, entry.name, args)
    if entry.via is Via.OWN:
        got = _own(b, fn, args, bits == 32, fast, arch, flush_exp2)
        if got is not None:
            return got
    return _libdevice(b, fn, entry, args, bits == 32)


def _own(
    b: ir.IRBuilder,
    fn: str,
    args: list[ir.Value],
    f32: bool,
    fast: bool,
    arch: int,
    flush_exp2: bool,
) -> ir.Value | None:
    """Fast NVPTX code where it applies; None leaves the function to libdevice."""
    x = args[0]
    ty = x.type
    if fn == "neg":
        return b.fneg(x)
    if fn == "sqrt":
        flags = ("afn",) if fast and f32 else ()
        return b.call(
            llvm_intr.overloaded(b.module, "llvm.sqrt", ty, [ty], [ty]), [x], fastmath=flags
        )
    if fn == "rsqrt" and f32:
        sqrt = llvm_intr.overloaded(b.module, "llvm.sqrt", F32, [F32], [F32])
        root = b.call(sqrt, [x], fastmath=("afn",))
        return b.fdiv(ir.Constant(F32, 1.0), root, flags=("arcp", "afn"))
    if f32 and fn in ("exp", "exp2", "log", "log2"):
        return _fast_exp_log(b, fn, x, flush_exp2)
    if (
        f32 and fast and (fn in ("sin", "cos") or (fn == "tanh" and arch >= 75))
    ):  # tanh.approx: sm_75+
        approx = llvm_intr.overloaded(b.module, f"llvm.{fn}", F32, [F32], [F32])
        return b.call(approx, [x], fastmath=("afn",))
    if fn == "fdiv_ieee":
        return b.fdiv(args[0], args[1])
    return None


def _fast_exp_log(b: ir.IRBuilder, fn: str, x: ir.Value, flush_exp2: bool) -> ir.Value:
    if fn == "exp":
        return intr.ex2_approx(b, b.fmul(x, ir.Constant(F32, LOG2E)))
    if fn == "exp2":  # as Triton's (libdevice's exp2f; subnormal results flushed by default)
        return intr.ex2_approx(b, x, ftz=flush_exp2)
    lg = intr.lg2_approx(b, x)
    return b.fmul(lg, ir.Constant(F32, LN2)) if fn == "log" else lg


def _libdevice(
    b: ir.IRBuilder, fn: str, entry: math_table.Entry, args: list[ir.Value], f32: bool
) -> ir.Value:
    name = entry.f32 if f32 else entry.f64
    if not name:
        raise UnsupportedFeature(f"{fn} takes fp32 only")
    ret = I32 if fn == "ilogb" else (F32 if f32 else F64)
    return b.call(llvm_intr.declare(b.module, name, ret, [a.type for a in args]), args)
