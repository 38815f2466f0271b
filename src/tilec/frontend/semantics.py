"""Typing rules shared by every builtin: constants, casts, promotion and broadcasting.

These follow Triton 3.9: Python numbers take the narrowest of i32/u32/i64/u64 or fp32/fp64;
a Python number of a kind no higher than a tensor's does not widen it; fp16/bf16 divisions
compute in fp32; integers follow C's usual arithmetic conversions; shapes broadcast NumPy-style.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import TileTypeError, UnsupportedFeature
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.ops import BitcastOp, CompareKind, Rounding
from ..ir.types import (
    UNSUPPORTED_TYPES,
    Element,
    PointerType,
    ScalarType,
    TileType,
    Type,
    with_element,
)
from . import fp8
from .values import Tensor, unwrap

Number = (bool, int, float)


def is_number(x: Any) -> bool:
    return isinstance(x, Number)


def python_type(x: bool | int | float) -> ScalarType:
    """The dtype a Python constant gets when it becomes a tensor."""
    if isinstance(x, bool):
        return T.int1
    if isinstance(x, int):
        for lo, hi, t in (
            (-(2**31), 2**31, T.int32),
            (2**31, 2**32, T.uint32),
            (-(2**63), 2**63, T.int64),
            (2**63, 2**64, T.uint64),
        ):
            if lo <= x < hi:
                return t
        # a huge int cannot even be printed (Python's 4300-digit limit): show its size instead
        shown = str(x) if x.bit_length() < 256 else f"of {x.bit_length()} bits"
        raise TileTypeError(f"integer constant {shown} does not fit in 64 bits")
    ax = abs(x)
    if math.isinf(ax) or ax == 0.0 or x != x or 2.0**-126 <= ax <= (2 - 2.0**-23) * 2.0**127:
        return T.float32
    return T.float64


def _held(value: float, dtype: ScalarType) -> float:
    """The value an fp32/fp16 constant really holds: constant folding must see the rounded
    number (an fp32 0.1 widened to fp64 is 0.10000000149011612, as on the device)."""
    import numpy as np  # lazy: ~60 ms, only when an fp32/fp16 constant is folded

    conv = {"fp32": np.float32, "fp16": np.float16}.get(dtype.name)
    if conv is None or value != value:
        return value  # NaN keeps its payload-free Python form
    with np.errstate(over="ignore"):
        return float(conv(value))


def constant(b: Builder, value: bool | int | float, dtype: ScalarType) -> Tensor:
    """A scalar constant of ``dtype`` (the value converted the way a cast would)."""
    if dtype.is_floating():
        value = _held(float(value), dtype)
    elif dtype.is_bool():
        value = bool(value)
    else:
        if isinstance(value, float):
            if value != value or math.isinf(value):
                raise TileTypeError(f"cannot convert {value} to {dtype}")
            value = int(value)
        value = int(value)
        bits = dtype.bits
        value &= (1 << bits) - 1
        if dtype.is_int_signed() and value >= 1 << (bits - 1):
            value -= 1 << bits
    return Tensor(b.constant(value, dtype))


def to_tensor(b: Builder, x: Any) -> Tensor:
    """A Tensor for ``x``: Tensors pass through, Python numbers become typed constants."""
    x = unwrap(x)
    if isinstance(x, Tensor):
        return x
    if is_number(x):
        return constant(b, x, python_type(x))
    raise TileTypeError(f"expected a tensor or a number, got {_describe(x)}")


def _describe(x: Any) -> str:
    if isinstance(x, ScalarType):
        return f"the dtype {x!r}"
    if x is None:
        return "None"
    return f"{type(x).__name__} {x!r}" if isinstance(x, (str, tuple, list)) else type(x).__name__


def describe(x: Any) -> str:
    return f"a {x.type} tensor" if isinstance(x, Tensor) else _describe(x)


# -- casts ---------------------------------------------------------------------------------
def require_supported(dtype: Element) -> Element:
    """Reject the dtypes tl names but tilec cannot compute with (fp8)."""
    if dtype in UNSUPPORTED_TYPES:
        raise UnsupportedFeature(f"fp8 dtypes ({dtype!r}) are not supported by tilec")
    return dtype


def cast(b: Builder, x: Tensor, dtype: Element, rounding: str | None = None) -> Tensor:
    """``x.to(dtype)``: value conversion, keeping the shape."""
    src = x.dtype
    if src == dtype:
        return x
    if src in fp8.FORMATS:  # decoded and encoded here: backends never compute with fp8
        return cast(b, fp8.decode(b, fp8.bits_of(b, x), fp8.FORMATS[src]), dtype, rounding)
    if dtype in fp8.FORMATS and isinstance(src, ScalarType):
        return _to_fp8(b, x, dtype, rounding)
    require_supported(dtype)
    require_supported(src)
    narrowing = (
        isinstance(src, ScalarType)
        and isinstance(dtype, ScalarType)
        and src.is_floating()
        and dtype.is_floating()
        and dtype.bits < src.bits
    )
    if rounding is not None and not narrowing:
        raise TileTypeError(
            f"fp_downcast_rounding applies only to narrowing float casts, not {src} to {dtype}"
        )
    mode = _rounding(rounding)
    if isinstance(src, PointerType) and isinstance(dtype, PointerType):
        return Tensor(b.bitcast(x.value, with_element(x.type, dtype)))
    if isinstance(src, PointerType) or isinstance(dtype, PointerType):
        other = dtype if isinstance(src, PointerType) else src
        if not (isinstance(other, ScalarType) and other.is_int()):
            raise TileTypeError(f"cannot cast {src} to {dtype}")
        if other.bits != 64:
            return _pointer_int(b, x, src, dtype, other)
    return Tensor(b.cast(x.value, with_element(x.type, dtype), mode))


def _rounding(rounding: str | None) -> Rounding:
    """``fp_downcast_rounding`` (None: to nearest even) as the IR's Rounding."""
    if rounding is None:
        return Rounding.RTNE
    try:
        return Rounding(rounding)
    except ValueError:
        raise TileTypeError(f"unknown rounding mode {rounding!r}; use 'rtne' or 'rtz'") from None


def _pointer_int(b: Builder, x: Tensor, src: Element, dtype: Element, other: ScalarType) -> Tensor:
    """Pointers convert to and from 64-bit integers only (as in Triton); a narrower integer
    goes through int64 on the way: sign-extended if signed, as C converts it, before becoming
    an address, and truncated after being one; a pointer cast to int1 is ``ptr != 0``, as
    Triton's. Every backend then sees the same 64-bit conversion."""
    wide = T.int64 if other.is_int_signed() or other.bits == 1 else T.uint64
    if isinstance(dtype, PointerType):
        return cast(b, cast(b, x, wide), dtype)
    address = cast(b, x, T.int64)
    if other.bits == 1:
        zero = broadcast_to(b, constant(b, 0, T.int64), address.shape)
        return Tensor(b.compare(CompareKind.NE, address.value, zero.value))
    return cast(b, address, dtype)


def _to_fp8(b: Builder, x: Tensor, dtype: ScalarType, rounding: str | None) -> Tensor:
    mode = _rounding(rounding)
    if x.dtype != T.float64:
        x = cast(b, x, T.float32)  # exact for fp16/bf16; integers in fp8's range are exact too
    bits = fp8.encode(b, x, fp8.FORMATS[dtype], mode)
    return Tensor(b.bitcast(bits.value, with_element(bits.type, dtype)))


def bitcast(b: Builder, x: Tensor, dtype: Element) -> Tensor:
    """``x.to(dtype, bitcast=True)``; a bitcast of a bitcast starts from the original bits, so
    fp8 patterns (uint8 -> fp8 -> uint8) never leave the frontend."""
    if dtype not in fp8.FORMATS:
        require_supported(dtype)
    src = x.dtype
    if src == dtype:
        return x
    inner = x.value.defining_op
    if isinstance(inner, BitcastOp):
        return bitcast(b, Tensor(inner.operands[0]), dtype)
    if isinstance(src, PointerType) or isinstance(dtype, PointerType):
        return cast(b, x, dtype)
    if src.primitive_bitwidth != dtype.primitive_bitwidth:
        raise TileTypeError(
            f"cannot bitcast {src} ({src.primitive_bitwidth} bits) to {dtype} "
            f"({dtype.primitive_bitwidth} bits)"
        )
    return Tensor(b.bitcast(x.value, with_element(x.type, dtype)))


# -- promotion -----------------------------------------------------------------------------
def _kind_rank(t: ScalarType) -> int:
    return 0 if t.is_bool() else 2 if t.is_floating() else 1


def integer_promote(a: ScalarType, c: ScalarType) -> ScalarType:
    """C's usual arithmetic conversions for two integer types."""
    if a.is_int_unsigned() == c.is_int_unsigned():
        return a if a.bits > c.bits else c
    if a.is_int_unsigned():
        return a if a.bits >= c.bits else c
    return c if c.bits >= a.bits else a


def computation_type(
    a: ScalarType, a_scalar: bool, c: ScalarType, c_scalar: bool, div_or_mod: bool
) -> ScalarType:
    """The element type a binary arithmetic op computes in (Triton's promotion table)."""
    if a_scalar != c_scalar:
        scalar_t, tensor_t = (a, c) if a_scalar else (c, a)
        if _kind_rank(scalar_t) <= _kind_rank(tensor_t):
            if div_or_mod and tensor_t in (T.float16, T.bfloat16):
                return T.float32
            return tensor_t
    names = {a.name, c.name}
    if "fp64" in names:
        return T.float64
    if "fp32" in names:
        return T.float32
    if "fp16" in names:
        return T.float32 if div_or_mod else T.float16
    if names == {"bf16"}:
        return T.float32 if div_or_mod else T.bfloat16
    if "bf16" in names:
        return T.float32
    if a in UNSUPPORTED_TYPES or c in UNSUPPORTED_TYPES:  # fp8: Triton's rule 5
        if a in UNSUPPORTED_TYPES and c in UNSUPPORTED_TYPES:
            return a if a == c else T.float16
        raise TileTypeError(f"unexpected type {a} and {c}")
    if (
        div_or_mod
        and a.is_int_unsigned() != c.is_int_unsigned()
        and not (a.is_bool() or c.is_bool())
    ):
        raise TileTypeError(
            f"Cannot use /, // or % with {a!r} and {c!r} because they have "
            "different signedness; cast them to the same signedness"
        )
    return integer_promote(a, c)


def _int_range(t: ScalarType) -> tuple[int, int]:
    if t.is_bool():
        return 0, 1
    if t.is_int_unsigned():
        return 0, 2**t.bits - 1
    return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1


def _check_ptr(a: Element, c: Element, allow_ptr: bool) -> None:
    if isinstance(a, PointerType) and (
        not allow_ptr
        or (isinstance(c, PointerType) and a != c)
        or (isinstance(c, ScalarType) and c.is_floating())
    ):
        raise TileTypeError(f"invalid operands of type {a} and {c}")


def binary_operands(
    b: Builder,
    x: Any,
    y: Any,
    *,
    allow_lhs_ptr: bool = False,
    allow_rhs_ptr: bool = False,
    arithmetic: bool = True,
    div_or_mod: bool = False,
) -> tuple[Tensor, Tensor]:
    """Convert, promote and broadcast the operands of a binary op."""
    x, y = unwrap(x), unwrap(y)
    x_scalar, y_scalar = is_number(x), is_number(y)
    tx = python_type(x) if x_scalar else _tensor(x).dtype
    ty = python_type(y) if y_scalar else _tensor(y).dtype
    _check_ptr(tx, ty, allow_lhs_ptr)
    _check_ptr(ty, tx, allow_rhs_ptr)
    if arithmetic and isinstance(tx, ScalarType) and isinstance(ty, ScalarType):
        ret = computation_type(tx, x_scalar, ty, y_scalar, div_or_mod)
        x = _convert(b, x, x_scalar, ret)
        y = _convert(b, y, y_scalar, ret)
    else:
        x = to_tensor(b, x) if x_scalar else x
        y = to_tensor(b, y) if y_scalar else y
    return broadcast_pair(b, x, y)


def _tensor(x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TileTypeError(f"expected a tensor or a number, got {_describe(x)}")
    return x


def _convert(b: Builder, x: Any, is_scalar: bool, ret: ScalarType) -> Tensor:
    if not is_scalar:
        return cast(b, x, ret)
    if ret.is_int() and not ret.is_bool():
        lo, hi = _int_range(ret)
        if ret.is_int_unsigned() and x < 0:
            raise TileTypeError(
                "Cannot perform a binary operation between an unsigned tensor and a negative "
                "scalar: cast one of them explicitly"
            )
        if not lo <= x <= hi:
            # as in Triton: a number takes the tensor's type (0xFFFFFFC0 >> an int32 tensor
            # is refused too); a cast of either operand says which type is meant
            raise TileTypeError(f"Scalar {x} is out of range for type {ret.name}")
    return constant(b, x, ret)


# -- broadcasting --------------------------------------------------------------------------
def broadcast_shapes(a: tuple[int, ...], c: tuple[int, ...]) -> tuple[int, ...]:
    rank = max(len(a), len(c))
    a2 = (1,) * (rank - len(a)) + a
    c2 = (1,) * (rank - len(c)) + c
    out = []
    for i, (p, q) in enumerate(zip(a2, c2)):
        if p != q and 1 not in (p, q):
            raise TileTypeError(
                f"shapes {list(a)} and {list(c)} cannot be broadcast together "
                f"(dimension {i}: {p} vs {q})"
            )
        out.append(q if p == 1 else p)
    return tuple(out)


def broadcast_to(b: Builder, x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``x`` expanded to ``shape``: scalars are splatted, missing leading dims added."""
    src = x.shape
    if src == tuple(shape):
        return x
    if not src:
        return Tensor(b.splat(x.value, shape))
    if len(src) > len(shape):
        raise TileTypeError(f"cannot broadcast shape {list(src)} to {list(shape)}")
    v = x.value
    for _ in range(len(shape) - len(src)):
        v = b.expand_dims(v, 0)
    full = (1,) * (len(shape) - len(src)) + src
    for i, (p, q) in enumerate(zip(full, shape)):
        if p != q and p != 1:
            raise TileTypeError(
                f"cannot broadcast shape {list(src)} to {list(shape)} (dimension {i}: {p} vs {q})"
            )
    return Tensor(b.broadcast(v, shape) if full != tuple(shape) else v)


def broadcast_pair(b: Builder, x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    if x.shape == y.shape:
        return x, y
    shape = broadcast_shapes(x.shape, y.shape)
    return broadcast_to(b, x, shape), broadcast_to(b, y, shape)


def tile_type(shape: tuple[int, ...], dtype: Element) -> Type:
    return TileType(tuple(shape), dtype) if shape else dtype
