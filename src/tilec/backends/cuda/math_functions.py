"""Elementwise math on one register: fast NVPTX instructions where exact enough, else libdevice.

Never emits ``llvm.exp/log/log2/pow`` or non-``afn`` ``sin/cos/tanh``: LLVM 22 cannot select them
for NVPTX and aborts. exp/log use ex2.approx/lg2.approx with log2(e)/ln(2) scaling (as Triton
does); f16/bf16 compute in f32. Everything else calls ``__nv_*`` from libdevice, linked later.
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.types import ScalarType
from ..llvm import exact_math
from ..llvm import intrinsics as llvm_intr
from . import intrinsics as intr
from .types import F32, F64, I32, is_float

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453

_LLVM_UNARY = {
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
    "rint": "rint",
    "nearbyint": "nearbyint",
    "round": "round",
    "sqrt_rn": "sqrt",
}
_LLVM_BINARY = {"fmin": "minnum", "fmax": "maxnum", "copysign": "copysign"}
_LIBDEVICE_F32_ONLY = {
    "fast_expf",
    "fast_logf",
    "fast_log2f",
    "fast_exp10f",
    "fast_log10f",
    "fast_sinf",
    "fast_cosf",
    "fast_tanf",
    "fast_powf",
    "fast_dividef",
    "saturatef",
}
_LIBDEVICE_NAMES = {
    "div_rn": ("__nv_fdiv_rn", "__nv_ddiv_rn"),
    "div_rz": ("__nv_fdiv_rz", "__nv_ddiv_rz"),
    "div_rd": ("__nv_fdiv_rd", "__nv_ddiv_rd"),
    "div_ru": ("__nv_fdiv_ru", "__nv_ddiv_ru"),
    "rcp_rn": ("__nv_frcp_rn", "__nv_drcp_rn"),
    "ilogb": ("__nv_ilogbf", "__nv_ilogb"),
    "ldexp": ("__nv_ldexpf", "__nv_ldexp"),
    "fast_dividef": ("__nv_fast_fdividef", ""),
}


def apply(
    b: ir.IRBuilder, fn: str, args: list[ir.Value], elem: ScalarType, fast: bool, arch: int = 80
) -> ir.Value:
    """``fn`` applied to one element of type ``elem``."""
    if elem.is_int():
        return exact_math.integer(b, fn, args, elem)
    if fn in exact_math.PREDICATES:
        return exact_math.predicate(b, fn, args[0])
    if elem.bits < 32 and fn not in (
        "neg",
        "abs",
        "fma",
        "floor",
        "ceil",
        "trunc",
        "rint",
        "fmin",
        "fmax",
        "copysign",
    ):
        wide = [b.fpext(a, F32) if is_float(a.type) else a for a in args]
        out = _float(b, fn, wide, 32, fast, arch)
        return b.fptrunc(out, args[0].type) if is_float(out.type) else out
    return _float(b, fn, args, elem.bits, fast, arch)


def _float(
    b: ir.IRBuilder, fn: str, args: list[ir.Value], bits: int, fast: bool, arch: int
) -> ir.Value:
    x = args[0]
    ty = x.type
    f32 = bits == 32
    if fn == "neg":
        return b.fneg(x)
    if fn == "abs":
        return llvm_intr.call(b, "fabs", [x])
    if fn == "fma":
        return llvm_intr.call(b, "fma", args)
    if fn in _LLVM_UNARY:
        return llvm_intr.call(b, _LLVM_UNARY[fn], [x])
    if fn in _LLVM_BINARY:
        return llvm_intr.call(b, _LLVM_BINARY[fn], args)
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
        return _fast_exp_log(b, fn, x)
    if (
        f32 and fast and (fn in ("sin", "cos") or (fn == "tanh" and arch >= 75))
    ):  # tanh.approx: sm_75+
        approx = llvm_intr.overloaded(b.module, f"llvm.{fn}", F32, [F32], [F32])
        return b.call(approx, [x], fastmath=("afn",))
    if fn == "fdiv_ieee":
        return b.fdiv(args[0], args[1])
    return _libdevice(b, fn, args, f32)


def _fast_exp_log(b: ir.IRBuilder, fn: str, x: ir.Value) -> ir.Value:
    if fn == "exp":
        return intr.ex2_approx(b, b.fmul(x, ir.Constant(F32, LOG2E)))
    if fn == "exp2":  # as Triton's (libdevice's exp2f, subnormal results flushed)
        return intr.ex2_approx(b, x, ftz=True)
    lg = intr.lg2_approx(b, x)
    return b.fmul(lg, ir.Constant(F32, LN2)) if fn == "log" else lg


def _libdevice(b: ir.IRBuilder, fn: str, args: list[ir.Value], f32: bool) -> ir.Value:
    if fn in _LIBDEVICE_NAMES and _LIBDEVICE_NAMES[fn][0 if f32 else 1]:
        name = _LIBDEVICE_NAMES[fn][0 if f32 else 1]
    elif fn in _LIBDEVICE_F32_ONLY:
        if not f32:
            raise UnsupportedFeature(f"{fn} takes fp32 only")
        name = f"__nv_{fn}"
    else:
        name = f"__nv_{fn}f" if f32 else f"__nv_{fn}"
    ret = I32 if fn == "ilogb" else (F32 if f32 else F64)
    return b.call(llvm_intr.declare(b.module, name, ret, [a.type for a in args]), args)
