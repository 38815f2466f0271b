"""Arithmetic, bitwise, comparison and logical operators on tensors and Python numbers.

Python operators in kernels and the matching ``tl`` builtins all come here. Integer ``//``
and ``%`` truncate like C; ``/`` on integers computes in fp32; pointers add integer offsets.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.ops import BinaryKind as BK
from ..ir.ops import CompareKind
from ..ir.types import PointerType, ScalarType
from . import semantics as S
from .values import Tensor, unwrap


def _bin(b: Builder, kind: BK, x: Tensor, y: Tensor, **kw: Any) -> Tensor:
    return Tensor(b.binary(kind, x.value, y.value, **kw))


def add(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, allow_lhs_ptr=True, allow_rhs_ptr=True)
    if isinstance(x.dtype, PointerType) and isinstance(y.dtype, PointerType):
        raise TileTypeError("cannot add two pointers")
    if isinstance(y.dtype, PointerType):
        x, y = y, x
    if isinstance(x.dtype, PointerType):
        return addptr(b, x, y)
    return _bin(b, BK.ADD, x, y)


def addptr(b: Builder, ptr: Tensor, offset: Tensor) -> Tensor:
    off_t = offset.dtype
    if not (isinstance(off_t, ScalarType) and off_t.is_int()):
        raise TileTypeError(f"pointer offsets must be integers, got {off_t}")
    if off_t.is_bool() or (off_t.is_int_unsigned() and off_t.bits < 64):
        offset = S.cast(b, offset, T.int64)  # zero-extends: unsigned offsets stay positive
    ptr, offset = S.broadcast_pair(b, ptr, offset)
    pt = ptr.dtype
    if isinstance(pt, PointerType) and pt.element in T.UNSUPPORTED_TYPES:
        # fp8 is a byte in memory and backends know no fp8 type: step through a *u8
        as_bytes = S.cast(b, ptr, T.pointer(T.uint8, pt.address_space))
        return S.cast(b, Tensor(b.addptr(as_bytes.value, offset.value)), pt)
    return Tensor(b.addptr(ptr.value, offset.value))


def sub(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, allow_lhs_ptr=True)
    if isinstance(x.dtype, PointerType):
        return addptr(b, x, neg(b, y))
    return _bin(b, BK.SUB, x, y)


def mul(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y)
    return _bin(b, BK.MUL, x, y)


def truediv(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, div_or_mod=True)
    tx, ty = x.dtype, y.dtype
    assert isinstance(tx, ScalarType) and isinstance(ty, ScalarType)
    if tx.is_int() and ty.is_int():
        x, y = S.cast(b, x, T.float32), S.cast(b, y, T.float32)
    return _bin(b, BK.DIV, x, y)


def floordiv(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, div_or_mod=True)
    if not (isinstance(x.dtype, ScalarType) and x.dtype.is_int()):
        raise TileTypeError(f"// needs integer operands, got {x.dtype}; use / for floats")
    return _bin(b, BK.DIV, x, y)


def mod(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, div_or_mod=True)
    return _bin(b, BK.REM, x, y)


def fdiv(b: Builder, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y, div_or_mod=True)
    if not x.dtype.is_floating():
        raise TileTypeError(f"fdiv needs floating-point operands, got {x.dtype}")
    return _bin(b, BK.DIV, x, y)


def _bitwise_operands(b: Builder, x: Any, y: Any) -> tuple[Tensor, Tensor]:
    x, y = S.binary_operands(b, x, y)
    for t in (x.dtype, y.dtype):
        if not (isinstance(t, ScalarType) and t.is_int()):
            raise TileTypeError(
                f"invalid operands of type {x.dtype} and {y.dtype}: bitwise operators need "
                "integer operands"
            )
    return x, y


def bitwise(b: Builder, kind: BK, x: Any, y: Any) -> Tensor:
    x, y = _bitwise_operands(b, x, y)
    return _bin(b, kind, x, y)


_SIGNED = {8: T.int8, 16: T.int16, 32: T.int32, 64: T.int64}


def shift(b: Builder, left: bool, x: Any, y: Any) -> Tensor:
    """``x << y`` / ``x >> y`` in the promoted type. As in Triton, ``>>`` is arithmetic when the
    tensor operand (``x``, else ``y``) is signed, even where promotion made the result unsigned
    (``int8 >> uint8`` shifts the sign bit in and gives uint8)."""
    if left:
        return bitwise(b, BK.SHL, x, y)
    decides = x if isinstance(x, Tensor) else y
    dtype = decides.dtype if isinstance(decides, Tensor) else None
    arithmetic = isinstance(dtype, ScalarType) and dtype.is_int_signed()
    x, y = _bitwise_operands(b, x, y)
    t = x.dtype
    assert isinstance(t, ScalarType)
    if not arithmetic or not t.is_int_unsigned():
        return _bin(b, BK.SHR, x, y)
    signed = _SIGNED[t.bits]
    shifted = _bin(b, BK.SHR, S.bitcast(b, x, signed), S.bitcast(b, y, signed))
    return S.bitcast(b, shifted, t)


_CMP = {
    "eq": CompareKind.EQ,
    "ne": CompareKind.NE,
    "lt": CompareKind.LT,
    "le": CompareKind.LE,
    "gt": CompareKind.GT,
    "ge": CompareKind.GE,
}


def compare(b: Builder, kind: str, x: Any, y: Any) -> Tensor:
    x, y = S.binary_operands(b, x, y)
    return Tensor(b.compare(_CMP[kind], x.value, y.value))


def neg(b: Builder, x: Any) -> Tensor:
    x = S.to_tensor(b, x)
    if isinstance(x.dtype, PointerType):
        raise TileTypeError(f"cannot negate a pointer ({x.dtype})")
    if isinstance(x.dtype, ScalarType) and x.dtype.is_floating():
        return Tensor(b.math("neg", x.value))  # flips the sign bit: -(+0.0) is -0.0, not 0 - x
    return sub(b, S.constant(b, 0, x.dtype), x)


def invert(b: Builder, x: Any) -> Tensor:
    x = S.to_tensor(b, x)
    t = x.dtype
    if not (isinstance(t, ScalarType) and t.is_int()):
        raise TileTypeError(f"~ needs an integer operand, got {t}")
    return Tensor(b.math("not", x.value))


def to_bool(b: Builder, x: Any) -> Tensor:
    x = S.to_tensor(b, x)
    if x.dtype == T.int1:
        return x
    return compare(b, "ne", x, 0)


def logical_not(b: Builder, x: Any) -> Tensor:
    x = to_bool(b, x)
    return bitwise(b, BK.XOR, x, S.broadcast_to(b, S.constant(b, True, T.int1), x.shape))


def logical(b: Builder, is_and: bool, x: Any, y: Any) -> Tensor:
    return bitwise(b, BK.AND if is_and else BK.OR, to_bool(b, x), to_bool(b, y))


def _minmax_operand(b: Builder, v: Any) -> Tensor:
    """As in Triton's minimum/maximum/clamp: a Python number becomes a tensor of its own type
    first (so it promotes like any tensor: maximum(int8, 0) is int32) and bf16 becomes fp32."""
    t = S.to_tensor(b, v)
    if isinstance(t.dtype, ScalarType) and t.dtype.is_bf16():
        return S.cast(b, t, T.float32)
    return t


def minmax(b: Builder, is_max: bool, x: Any, y: Any, propagate_nan: Any = None) -> Tensor:
    x, y = S.binary_operands(b, _minmax_operand(b, x), _minmax_operand(b, y))
    nan = _propagate(propagate_nan)
    return _bin(b, BK.MAX if is_max else BK.MIN, x, y, propagate_nan=nan and x.dtype.is_floating())


def _propagate(flag: Any) -> bool:
    flag = unwrap(flag)
    if flag is None:
        return False
    name = getattr(flag, "name", flag)
    if name in ("ALL", "all", True):
        return True
    if name in ("NONE", "none", False):
        return False
    raise TileTypeError(f"propagate_nan must be tl.PropagateNan.NONE or ALL, got {flag!r}")


def clamp(b: Builder, x: Any, lo: Any, hi: Any, propagate_nan: Any = None) -> Tensor:
    x, lo, hi = (_minmax_operand(b, v) for v in (x, lo, hi))
    lo, hi = S.binary_operands(b, lo, hi)
    x, lo = S.binary_operands(b, x, lo)
    x, hi = S.binary_operands(b, x, hi)
    if not x.dtype.is_floating():
        raise TileTypeError(f"clamp supports only floating-point tensors, got {x.dtype}")
    return minmax(b, False, minmax(b, True, x, lo, propagate_nan), hi, propagate_nan)


def where(b: Builder, cond: Any, x: Any, y: Any) -> Tensor:
    cond = to_bool(b, cond)
    x, y = S.binary_operands(b, x, y, allow_lhs_ptr=True, allow_rhs_ptr=True)
    if isinstance(x.dtype, PointerType) != isinstance(y.dtype, PointerType) or (
        isinstance(x.dtype, PointerType) and x.dtype != y.dtype
    ):
        raise TileTypeError(f"where of {x.dtype} and {y.dtype}")
    if cond.shape != x.shape:
        shape = S.broadcast_shapes(cond.shape, x.shape)
        x, y = S.broadcast_to(b, x, shape), S.broadcast_to(b, y, shape)
        cond = S.broadcast_to(b, cond, shape)
    return Tensor(b.select(cond.value, x.value, y.value))
