"""Elementwise operations on single LLVM values: the code one element of a tile (or a scalar) gets.

The semantics are llvm/scalar.py's (shared with the CUDA backend); this module holds the CPU's
representation. Values use their storage type (fp16 as ``half``, bf16 as ``i16``); fp16/bf16
arithmetic extends to fp32, computes, and rounds back to nearest-even after every op, as Triton
does. Every fp16/bf16 conversion is integer code, so no object ever needs a compiler-rt helper
(``__truncdfhf2``, ``__extendhfsf2`` ...) that the Python process may lack; on targets whose ISA
converts fp32 <-> fp16 in one instruction (x86 F16C, AArch64) that instruction is used instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from llvmlite import ir

from ...errors import UnsupportedFeature
from ...ir.ops import BinaryKind, CompareKind
from ...ir.types import Element, Kind, PointerType, ScalarType
from ..llvm import scalar as S
from ..llvm import types as T
from ..llvm.intrinsics import call_same

# whether the module being lowered may use fpext/fptrunc between half and float: set for the
# duration of one lowering (a context variable, so concurrent compiles for other targets don't mix)
_native_half: ContextVar[bool] = ContextVar("tilec_cpu_native_half", default=False)


def has_native_half(triple: str, features: str) -> bool:
    """True where LLVM selects fp32 <-> fp16 conversions to one instruction, never a libcall."""
    return triple.startswith(("aarch64", "arm64")) or "+f16c" in features.split(",")


@contextlib.contextmanager
def native_half(enabled: bool) -> Iterator[None]:
    """Lower the fp32 <-> fp16 conversions inside the block with native instructions."""
    token = _native_half.set(enabled)
    try:
        yield
    finally:
        _native_half.reset(token)


def to_compute(b: ir.IRBuilder, x: ir.Value, t: ScalarType) -> ir.Value:
    """Widen fp16/bf16 storage values to fp32 (exactly); other values are returned unchanged."""
    if t.name == "fp16":
        if _native_half.get():
            return b.fpext(x, T.f32)
        return S.f16_bits_to_f32(b, b.bitcast(x, T.i16))
    if t.name == "bf16":
        return S.bf16_bits_to_f32(b, x)
    return x


def from_compute(b: ir.IRBuilder, x: ir.Value, t: ScalarType, rounding: str = "rtne") -> ir.Value:
    """Round a compute value (fp32 or fp64) to ``t``'s storage type, correctly rounded (one
    rounding: fp64 goes through fp32 rounded to odd)."""
    if t.name not in ("fp16", "bf16"):
        return S.narrow(b, x, T.storage_type(t), rounding)
    if x.type == T.f64:
        x = S.f64_to_f32_before_16(b, x, rounding)
    if t.name == "bf16":
        return S.f32_to_bf16_bits(b, x, rounding)
    if rounding == "rtne" and _native_half.get():
        return b.fptrunc(x, T.f16)  # one rounding from fp32, nearest-even, NaN made quiet
    return b.bitcast(S.f32_to_f16_bits(b, x, rounding), T.f16)


def constant(t: Element, value: bool | int | float) -> ir.Constant:
    """A constant in storage representation."""
    if isinstance(t, ScalarType) and t.name == "bf16":
        return ir.Constant(T.i16, T.f32_to_bf16_bits(float(value)))
    if isinstance(t, PointerType):
        return ir.Constant(T.ptr, None)
    return T.const(T.storage_type(t), value)


def _is_signed(t: ScalarType) -> bool:
    return t.kind is Kind.SINT


# -- binary -----------------------------------------------------------------------------------


def binary(
    b: ir.IRBuilder,
    kind: BinaryKind,
    t: ScalarType,
    x: ir.Value,
    y: ir.Value,
    propagate_nan: bool = False,
    via_select: bool = False,
    simd_minmax: bool = False,
) -> ir.Value:
    """``x kind y``. Float min/max are compares and selects with the exact semantics of
    llvm/scalar.py (``via_select`` is that default, kept for callers that name it).
    ``simd_minmax`` asks for LLVM's minnum/maxnum (minimum/maximum) instead, for reduction loops
    the vectorizer must recognize: the same NaN rule, but a zero result's sign is left open."""
    del via_select
    if not t.is_floating():
        return S.int_binary(b, kind, _is_signed(t), x, y)
    cx, cy = to_compute(b, x, t), to_compute(b, y, t)
    if simd_minmax and kind in (BinaryKind.MIN, BinaryKind.MAX):
        name = ("minimum" if propagate_nan else "minnum") if kind is BinaryKind.MIN else None
        name = name or ("maximum" if propagate_nan else "maxnum")
        return from_compute(b, call_same(b, name, cx, cy), t)
    return from_compute(b, _float_binary(b, kind, cx, cy, propagate_nan), t)


_FLOAT_OPS = {
    BinaryKind.ADD: "fadd",
    BinaryKind.SUB: "fsub",
    BinaryKind.MUL: "fmul",
    BinaryKind.DIV: "fdiv",
    BinaryKind.REM: "frem",  # C fmod, through the C library: exact
}


def _float_binary(
    b: ir.IRBuilder, kind: BinaryKind, x: ir.Value, y: ir.Value, propagate_nan: bool
) -> ir.Value:
    if kind in (BinaryKind.MIN, BinaryKind.MAX):
        return S.float_minmax(b, kind, x, y, propagate_nan)
    name = _FLOAT_OPS.get(kind)
    if name is None:
        raise UnsupportedFeature(f"binary {kind.value} on floating-point values")
    return getattr(b, name)(x, y)


# -- compare, select, casts -------------------------------------------------------------------


def compare(b: ir.IRBuilder, kind: CompareKind, t: Element, x: ir.Value, y: ir.Value) -> ir.Value:
    if isinstance(t, ScalarType) and t.is_floating():
        return S.compare(b, kind, Kind.FLOAT, to_compute(b, x, t), to_compute(b, y, t))
    signed = isinstance(t, ScalarType) and _is_signed(t)
    return S.compare(b, kind, Kind.SINT if signed else Kind.UINT, x, y)


def cast(
    b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element, rounding: str = "rtne"
) -> ir.Value:
    if src == dst:
        return x
    if isinstance(src, PointerType) or isinstance(dst, PointerType):
        return _pointer_cast(b, x, src, dst)
    assert isinstance(src, ScalarType) and isinstance(dst, ScalarType)
    if dst.is_bool():
        floating = src.is_floating()
        return S.is_nonzero(b, to_compute(b, x, src) if floating else x, floating)
    if src.is_floating() and dst.is_floating():
        cx = to_compute(b, x, src)
        want = T.compute_type(dst)
        if cx.type != want and T.bit_width(want) > T.bit_width(cx.type):
            cx = b.fpext(cx, want)
        return from_compute(b, cx, dst, rounding)
    if src.is_floating():
        return S.float_to_int(b, to_compute(b, x, src), dst)
    if dst.is_floating():
        return from_compute(b, S.int_to_float(b, x, _is_signed(src), dst), dst, rounding)
    to = T.storage_type(dst)
    assert isinstance(to, ir.IntType)
    return S.int_resize(b, x, _is_signed(src), to)


def _pointer_cast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        return x
    if isinstance(src, PointerType):
        assert isinstance(dst, ScalarType)
        return b.ptrtoint(x, T.storage_type(dst))
    assert isinstance(src, ScalarType)
    # the frontend widens narrower integers to 64 bits first (semantics.cast), as for CUDA
    return b.inttoptr(S.int_resize(b, x, _is_signed(src), T.i64), T.ptr)


def bitcast(b: ir.IRBuilder, x: ir.Value, src: Element, dst: Element) -> ir.Value:
    to = T.storage_type(dst)
    if x.type == to:
        return x
    if isinstance(src, PointerType):
        return b.ptrtoint(x, to)
    if isinstance(dst, PointerType):
        return b.inttoptr(x, to)
    return b.bitcast(x, to)
