"""``tl.load`` and ``tl.store``: through pointers, tiles of pointers, or block pointers."""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from .builtin import builtin
from .builtins_blockptr import block_load, block_store
from .const_pointers import check_writable
from .pointers import (
    _EVICTION,
    _LOAD_CACHE,
    _STORE_CACHE,
    _option,
    _pointer,
    load_pointers,
    store_pointers,
)
from .values import BlockPointer, Tensor, unwrap


@builtin()
def load(
    ctx: Any,
    pointer: Any,
    mask: Any = None,
    other: Any = None,
    boundary_check: Any = (),
    padding_option: Any = "",
    cache_modifier: Any = "",
    eviction_policy: Any = "",
    volatile: Any = False,
) -> Tensor:
    """Load a tile (or scalar) through ``pointer``; block pointers check ``boundary_check``."""
    cache = _option(cache_modifier, _LOAD_CACHE, "cache_modifier")
    eviction = _option(eviction_policy, _EVICTION, "eviction_policy")
    p = unwrap(pointer)
    if isinstance(p, BlockPointer):
        if unwrap(mask) is not None or unwrap(other) is not None:
            raise TileTypeError(
                "mask and other cannot be used with block pointers; use "
                "boundary_check and padding_option"
            )
        return block_load(ctx, p, boundary_check, padding_option, cache, eviction)
    if unwrap(boundary_check) or unwrap(padding_option):
        raise TileTypeError("boundary_check and padding_option apply only to block pointers")
    return load_pointers(
        ctx, _pointer(p, "load"), mask, other, cache, eviction, bool(unwrap(volatile))
    )


@builtin()
def store(
    ctx: Any,
    pointer: Any,
    value: Any,
    mask: Any = None,
    boundary_check: Any = (),
    cache_modifier: Any = "",
    eviction_policy: Any = "",
) -> None:
    """Store ``value`` through ``pointer`` where ``mask`` is true."""
    cache = _option(cache_modifier, _STORE_CACHE, "cache_modifier")
    eviction = _option(eviction_policy, _EVICTION, "eviction_policy")
    p = unwrap(pointer)
    check_writable(ctx.unit, p)
    if isinstance(p, BlockPointer):
        if unwrap(mask) is not None:
            raise TileTypeError("mask cannot be used with block pointers; use boundary_check")
        return block_store(ctx, p, value, boundary_check, cache, eviction)
    if unwrap(boundary_check):
        raise TileTypeError("boundary_check applies only to block pointers")
    store_pointers(ctx, _pointer(p, "store"), value, mask, cache, eviction)
    return None
