"""Loads and stores through pointer tiles: masks, ``other``, booleans as bytes, hint checks.

Shared by ``tl.load``/``tl.store``, atomics, block pointers and tensor descriptors.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.types import PointerType, ScalarType
from . import arith, fp8
from . import semantics as S
from .values import Tensor, unwrap

_LOAD_CACHE = ("", ".ca", ".cg", ".cs", ".cv")

_STORE_CACHE = ("", ".wb", ".cg", ".cs", ".wt")

_EVICTION = ("", "evict_normal", "evict_first", "evict_last")


def _option(value: Any, allowed: tuple[str, ...], what: str) -> str:
    v = unwrap(value) or ""
    if v not in allowed:
        raise TileTypeError(f"{what} {v!r} is not supported; use one of {list(allowed[1:])}")
    return v


def _pointer(x: Any, what: str) -> Tensor:
    x = unwrap(x)
    if not isinstance(x, Tensor) or not isinstance(x.dtype, PointerType):
        raise TileTypeError(f"{what} needs a pointer or a tile of pointers, got {S.describe(x)}")
    return x


def _as_i8_if_bool(ctx: Any, ptr: Tensor) -> tuple[Tensor, bool]:
    """Memory holds booleans as bytes: access ``*i1`` through ``*i8``."""
    elem = ptr.dtype.element  # type: ignore[union-attr]
    if elem == T.int1:
        return S.cast(ctx.b, ptr, T.pointer(T.int8)), True
    return ptr, False


def _as_bytes_if_fp8(ctx: Any, ptr: Tensor) -> tuple[Tensor, ScalarType | None]:
    """Memory holds fp8 as bytes and only the frontend computes with them (frontend/fp8.py):
    access ``*fp8`` through ``*u8``; returns the fp8 type, or None for other pointers."""
    pt = ptr.dtype
    assert isinstance(pt, PointerType)
    if pt.element not in fp8.FORMATS:
        return ptr, None
    as_bytes = T.pointer(T.uint8, pt.address_space)
    return S.cast(ctx.b, ptr, as_bytes), pt.element  # type: ignore[return-value]


def _mask(ctx: Any, mask: Any, shape: tuple[int, ...], what: str) -> Tensor | None:
    mask = unwrap(mask)
    if mask is None:
        return None
    m = arith.to_bool(ctx.b, mask)
    if m.shape and not shape:
        raise TileTypeError(f"{what} cannot be a tile when the pointer is a scalar")
    return S.broadcast_to(ctx.b, m, shape)


def _check_fits(v: Tensor, ptr: Tensor, what: str) -> None:
    """Raise unless ``v`` broadcasts to the pointer tile's shape without widening it."""
    if not v.shape or v.shape == ptr.shape:
        return
    full = (1,) * (len(ptr.shape) - len(v.shape)) + v.shape
    if len(v.shape) > len(ptr.shape) or any(p != q and p != 1 for p, q in zip(full, ptr.shape)):
        raise TileTypeError(
            f"{what} of shape {list(v.shape)} cannot be broadcast to the pointer shape "
            f"{list(ptr.shape)} (the pointers are not widened to the value)"
        )


def load_pointers(
    ctx: Any,
    ptr: Tensor,
    mask: Any,
    other: Any,
    cache: str = "",
    eviction: str = "",
    volatile: bool = False,
) -> Tensor:
    """Load through a pointer (tile); masked-off lanes give ``other`` (or zero/undefined)."""
    if unwrap(mask) is None and unwrap(other) is not None:
        raise TileTypeError("load's 'other' needs a 'mask'")
    m = None
    if unwrap(mask) is not None:
        m = arith.to_bool(ctx.b, unwrap(mask))
        if m.shape and not ptr.shape:
            raise TileTypeError("load's mask cannot be a tile when the pointer is a scalar")
        if m.shape:  # as in Triton, a load's pointers broadcast to a wider mask (a store's do not)
            ptr = S.broadcast_to(ctx.b, ptr, S.broadcast_shapes(ptr.shape, m.shape))
        m = S.broadcast_to(ctx.b, m, ptr.shape)
    ptr, was_bool = _as_i8_if_bool(ctx, ptr)
    ptr, fp8_type = _as_bytes_if_fp8(ctx, ptr)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    o = None
    if unwrap(other) is not None:
        # as in Triton, a Python number becomes a tensor of its own type first (a float is
        # fp32 when it fits) and is then cast to the pointee type like any tensor
        o = S.cast(ctx.b, S.to_tensor(ctx.b, other), fp8_type or elem)
        if fp8_type is not None:
            o = fp8.bits_of(ctx.b, o)
        if o.shape and not ptr.shape:
            raise TileTypeError("load's other cannot be a tile when the pointer is a scalar")
        shape = S.broadcast_shapes(ptr.shape, o.shape)
        if shape != ptr.shape:  # as in Triton, the pointers (and mask) broadcast to other too
            ptr = S.broadcast_to(ctx.b, ptr, shape)
            m = S.broadcast_to(ctx.b, m, shape) if m is not None else None
        o = S.broadcast_to(ctx.b, o, shape)
    result = Tensor(
        ctx.b.load(
            ptr.value,
            m.value if m is not None else None,
            o.value if o is not None else None,
            cache,
            eviction,
            volatile,
        )
    )
    if fp8_type is not None:
        return S.bitcast(ctx.b, result, fp8_type)
    return S.cast(ctx.b, result, T.int1) if was_bool else result


def store_pointers(
    ctx: Any, ptr: Tensor, value: Any, mask: Any, cache: str = "", eviction: str = ""
) -> None:
    v = unwrap(value)
    v = v if isinstance(v, Tensor) else S.to_tensor(ctx.b, v)
    if v.shape and not ptr.shape:
        raise TileTypeError("cannot store a tile through a scalar pointer")
    m = _mask(ctx, mask, ptr.shape, "store's mask")
    # as in Triton, only the value (and mask) broadcast to the pointers: widening the pointers
    # would write several values to one address
    _check_fits(v, ptr, "store's value")
    ptr, was_bool = _as_i8_if_bool(ctx, ptr)
    ptr, fp8_type = _as_bytes_if_fp8(ctx, ptr)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    if fp8_type is not None:
        v = fp8.bits_of(ctx.b, S.cast(ctx.b, v, fp8_type))
    v = S.broadcast_to(ctx.b, S.cast(ctx.b, v, T.int1 if was_bool else elem), ptr.shape)
    if was_bool:
        v = S.cast(ctx.b, v, T.int8)
    ctx.b.store(ptr.value, v.value, m.value if m is not None else None, cache, eviction)


def padding_value(ctx: Any, padding: Any, elem: Any) -> Any:
    """What an out-of-bounds element of a block pointer or tensor descriptor load reads:
    ``padding_option`` '' or 'zero' gives 0, 'nan' NaN (floating-point blocks only)."""
    p = unwrap(padding) or ""
    if p not in ("", "zero", "nan"):
        raise TileTypeError(f"padding_option {p!r} is not supported; use 'zero' or 'nan'")
    if p == "nan":
        if not elem.is_floating():
            raise TileTypeError("padding_option 'nan' needs a floating-point block")
        return float("nan")
    return 0
