"""Block pointers and tensor descriptors, lowered in the frontend to pointer tiles and masks.

A load or store through one becomes base + Σ (offset_d + arange) * stride_d (in i64) with a
mask of the in-bounds elements for the checked dimensions; neither struct reaches the IR.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.ops import AtomicKind, MemoryScope, MemorySemantic, Ordering
from ..ir.types import ScalarType
from . import arith
from . import builtins_descriptor_rows as rows
from . import semantics as S
from .builtin import BoundMethod, builtin
from .builtins_shape import shape_arg
from .const_pointers import check_writable
from .pointers import (
    _EVICTION,
    _LOAD_CACHE,
    _option,
    _pointer,
    load_pointers,
    padding_value,
    store_pointers,
)
from .values import BlockPointer, Tensor, TensorDescriptor, unwrap


# -- block pointers and tensor descriptors -------------------------------------------------
def _int_tensors(ctx: Any, values: Any, dtype: ScalarType, n: int, what: str) -> tuple[Tensor, ...]:
    vals = unwrap(values)
    vals = list(vals) if isinstance(vals, (tuple, list)) else [vals]
    if len(vals) != n:
        raise TileTypeError(f"{what} needs {n} values, got {len(vals)}")
    out = []
    for v in vals:
        t = S.to_tensor(ctx.b, unwrap(v))
        if t.shape or not (isinstance(t.dtype, ScalarType) and t.dtype.is_int()):
            raise TileTypeError(f"{what} must be integer scalars, got {t.type}")
        out.append(S.cast(ctx.b, t, dtype))
    return tuple(out)


@builtin()
def make_block_ptr(
    ctx: Any, base: Any, shape: Any, strides: Any, offsets: Any, block_shape: Any, order: Any
) -> BlockPointer:
    """A pointer to a ``block_shape`` window at ``offsets`` of a strided array."""
    p = _pointer(base, "make_block_ptr")
    if p.shape:
        raise TileTypeError("make_block_ptr's base must be a scalar pointer")
    blk = shape_arg(block_shape, "block_shape")
    n = len(blk)
    ordr = tuple(int(unwrap(o)) for o in unwrap(order))
    if sorted(ordr) != list(range(n)):
        raise TileTypeError(f"order {list(ordr)} is not a permutation of 0..{n - 1}")
    return BlockPointer(
        p,
        _int_tensors(ctx, shape, T.int64, n, "shape"),
        _int_tensors(ctx, strides, T.int64, n, "strides"),
        _int_tensors(ctx, offsets, T.int32, n, "offsets"),
        blk,
        ordr,
    )


@builtin()
def advance(ctx: Any, base: Any, offsets: Any) -> BlockPointer:
    """The block pointer moved by ``offsets`` elements per dimension."""
    bp = unwrap(base)
    if not isinstance(bp, BlockPointer):
        raise TileTypeError(f"advance needs a block pointer, got {S.describe(bp)}")
    delta = _int_tensors(ctx, offsets, T.int32, len(bp.block_shape), "advance's offsets")
    new = tuple(arith.add(ctx.b, o, d) for o, d in zip(bp.offsets, delta))
    return BlockPointer(bp.base, bp.shape, bp.strides, new, bp.block_shape, bp.order)


# as in Triton, a dropped result is a compile error: advance moves nothing in place
advance._must_use_result = (  # type: ignore[attr-defined]
    "tl.advance returns the moved block pointer and changes nothing else: assign its result "
    "(p = tl.advance(p, offsets))."
)


def _window(
    ctx: Any,
    base: Tensor,
    shape: tuple[Tensor, ...],
    strides: tuple[Tensor, ...],
    offsets: tuple[Tensor, ...],
    block: tuple[int, ...],
    checked: set[int],
) -> tuple[Tensor, Tensor | None]:
    """Pointers of a block window and the mask of its in-bounds elements (dims in ``checked``)."""
    b = ctx.b
    rank = len(block)
    ptr: Tensor = S.broadcast_to(b, base, block)
    mask: Tensor | None = None
    for d in range(rank):
        idx = arith.add(
            b, S.cast(b, offsets[d], T.int64), S.cast(b, Tensor(b.make_range(0, block[d])), T.int64)
        )
        for _ in range(d):
            idx = Tensor(b.expand_dims(idx.value, 0))
        for _ in range(rank - d - 1):
            idx = Tensor(b.expand_dims(idx.value, len(idx.shape)))
        ptr = arith.addptr(b, ptr, S.broadcast_to(b, arith.mul(b, idx, strides[d]), block))
        if d in checked:
            ok = arith.logical(
                b, True, arith.compare(b, "ge", idx, 0), arith.compare(b, "lt", idx, shape[d])
            )
            ok = S.broadcast_to(b, ok, block)
            mask = ok if mask is None else arith.logical(b, True, mask, ok)
    return ptr, mask


def _descriptor_window(ctx: Any, desc: Any, offsets: Any) -> tuple[Tensor, Tensor | None]:
    """The pointers and in-bounds mask of a tensor descriptor's block at ``offsets``."""
    every = set(range(len(desc.block_shape)))
    offs = _desc_offsets(ctx, desc, offsets)
    return _window(ctx, desc.base, desc.shape, desc.strides, offs, desc.block_shape, every)


def _boundary(value: Any, rank: int) -> set[int]:
    v = unwrap(value)
    dims = list(v) if isinstance(v, (tuple, list)) else ([] if v is None else [v])
    out = {int(unwrap(d)) for d in dims}
    if any(not 0 <= d < rank for d in out):
        raise TileTypeError(f"boundary_check dims {sorted(out)} out of range for rank {rank}")
    return out


def block_load(
    ctx: Any, bp: BlockPointer, boundary_check: Any, padding: Any, cache: str, eviction: str
) -> Tensor:
    checked = _boundary(boundary_check, len(bp.block_shape))
    ptr, mask = _window(ctx, bp.base, bp.shape, bp.strides, bp.offsets, bp.block_shape, checked)
    other = padding_value(ctx, padding, bp.dtype.element) if mask is not None else None  # type: ignore[union-attr]
    return load_pointers(ctx, ptr, mask, other, cache, eviction)


def block_store(
    ctx: Any, bp: BlockPointer, value: Any, boundary_check: Any, cache: str, eviction: str
) -> None:
    checked = _boundary(boundary_check, len(bp.block_shape))
    ptr, mask = _window(ctx, bp.base, bp.shape, bp.strides, bp.offsets, bp.block_shape, checked)
    v = unwrap(value)
    if isinstance(v, Tensor) and v.shape and v.shape != bp.block_shape:
        raise TileTypeError(
            f"storing a {list(v.shape)} tile through a block pointer of "
            f"block shape {list(bp.block_shape)}"
        )
    store_pointers(ctx, ptr, v, mask, cache, eviction)


def _check_descriptor(p: Tensor, shape: Any, strides: Any, blk: tuple[int, ...]) -> None:
    """Triton's rules for a descriptor (what a TMA copy needs): 1 to 5 dimensions, a shape and
    strides for each, at least 16 bytes in a block's last dimension, a last stride of 1."""
    n = len(blk)
    if not 1 <= n <= 5:
        raise TileTypeError(f"Expected 1 <= ndim <= 5 but got {n} dimensions")
    for what, given in (("shape", shape), ("strides", strides)):
        count = len(unwrap(given)) if isinstance(unwrap(given), (tuple, list)) else 1
        if count != n:
            raise TileTypeError(
                f"Expected {n} {what} entries (one per block dimension), got {count}"
            )
    elem_size = p.dtype.element.primitive_bitwidth // 8  # type: ignore[union-attr]
    if blk[-1] * elem_size < 16:
        raise TileTypeError(
            "Descriptor block shape must have at least 16 bytes in the last dimension, but got "
            f"{blk[-1]} * {elem_size} = {blk[-1] * elem_size} bytes"
        )
    last = unwrap(
        list(unwrap(strides))[-1] if isinstance(unwrap(strides), (tuple, list)) else strides
    )
    if isinstance(last, Tensor):
        raise TileTypeError(
            "Tensor descriptor last dim must be 1 but got a run-time stride; pass the "
            "constant 1 (an argument equal to 1 is specialized to it)"
        )
    if last != 1:
        raise TileTypeError(f"Tensor descriptor last dim must be 1 but got {last}")


@builtin()
def make_tensor_descriptor(
    ctx: Any, base: Any, shape: Any, strides: Any, block_shape: Any, padding_option: Any = "zero"
) -> TensorDescriptor:
    """A descriptor for loading and storing ``block_shape`` blocks of a strided array."""
    p = _pointer(base, "make_tensor_descriptor")
    blk = shape_arg(block_shape, "block_shape")
    n = len(blk)
    _check_descriptor(p, shape, strides, blk)
    pad = unwrap(padding_option) or "zero"
    padding_value(ctx, pad, p.dtype.element)  # type: ignore[union-attr]
    return TensorDescriptor(
        p,
        _int_tensors(ctx, shape, T.int64, n, "shape"),
        _int_tensors(ctx, strides, T.int64, n, "strides"),
        blk,
        pad,
    )


def _desc_offsets(ctx: Any, desc: TensorDescriptor, offsets: Any) -> tuple[Tensor, ...]:
    return _int_tensors(ctx, offsets, T.int32, len(desc.block_shape), "descriptor offsets")


@builtin()
def _descriptor_load(
    ctx: Any, desc: Any, offsets: Any, cache_modifier: Any = "", eviction_policy: Any = ""
) -> Tensor:
    """``desc.load(offsets)``: the block at ``offsets``, out-of-bounds elements padded."""
    ptr, mask = _descriptor_window(ctx, desc, offsets)
    other = padding_value(ctx, desc.padding, desc.dtype.element)
    return load_pointers(
        ctx,
        ptr,
        mask,
        other,
        _option(cache_modifier, _LOAD_CACHE, "cache_modifier"),
        _option(eviction_policy, _EVICTION, "eviction_policy"),
    )


@builtin()
def _descriptor_store(ctx: Any, desc: Any, offsets: Any, value: Any) -> None:
    """``desc.store(offsets, value)``: write the in-bounds part of the block at ``offsets``."""
    check_writable(ctx.unit, desc)
    ptr, mask = _descriptor_window(ctx, desc, offsets)
    v = unwrap(value)
    if isinstance(v, Tensor) and v.shape != desc.block_shape:
        raise TileTypeError(
            f"storing a {list(v.shape)} tile through a descriptor of block "
            f"shape {list(desc.block_shape)}"
        )
    store_pointers(ctx, ptr, v, mask)


# Triton's dtypes for a descriptor's atomic reduction where no TMA reduce unit does it (the
# CPU, and tilec's CUDA backend, which lowers descriptors to pointers): fp16/bf16 min and max
# need the native unit, so they are refused, as Triton refuses them there.
_REDUCE_DTYPES = {
    AtomicKind.ADD: (T.uint32, T.int32, T.uint64, T.float32, T.float16, T.bfloat16),
    AtomicKind.MIN: (T.uint32, T.int32, T.uint64, T.int64),
    AtomicKind.MAX: (T.uint32, T.int32, T.uint64, T.int64),
    AtomicKind.AND: (T.uint32, T.int32, T.uint64, T.int64),
    AtomicKind.OR: (T.uint32, T.int32, T.uint64, T.int64),
    AtomicKind.XOR: (T.uint32, T.int32, T.uint64, T.int64),
}


def _descriptor_atomic(kind: AtomicKind) -> Any:
    name = f"atomic_{kind.value}"

    def impl(ctx: Any, desc: Any, offsets: Any, value: Any) -> None:
        check_writable(ctx.unit, desc)
        elem = desc.dtype.element
        if elem not in _REDUCE_DTYPES[kind]:
            raise TileTypeError(
                f"descriptor {name} does not support {elem} (it supports "
                f"{', '.join(str(t) for t in _REDUCE_DTYPES[kind])})"
            )
        v = unwrap(value)
        if not isinstance(v, Tensor) or v.shape != desc.block_shape:
            got = list(v.shape) if isinstance(v, Tensor) else S.describe(v)
            raise TileTypeError(
                f"descriptor {name} of {got} values needs the block shape {list(desc.block_shape)}"
            )
        ptr, mask = _descriptor_window(ctx, desc, offsets)
        v = S.cast(ctx.b, v, elem)
        order = Ordering(MemorySemantic.RELAXED, MemoryScope.GPU)
        ctx.b.atomic_rmw(kind, ptr.value, v.value, mask.value if mask is not None else None, order)

    impl.__name__ = f"_descriptor_{name}"
    impl.__doc__ = (
        f"``desc.{name}(offsets, value)``: each in-bounds element of the block at ``offsets`` "
        "combined atomically with its element of ``value``."
    )
    return builtin(impl.__name__)(impl)


_DESCRIPTOR_ATOMICS = {f"atomic_{k.value}": _descriptor_atomic(k) for k in _REDUCE_DTYPES}


def struct_attribute(obj: Any, attr: str) -> Any:
    """Attributes and methods of block pointers and tensor descriptors."""
    if isinstance(obj, TensorDescriptor):
        if attr == "load":
            return BoundMethod(_descriptor_load, obj)
        if attr == "store":
            return BoundMethod(_descriptor_store, obj)
        if attr in _DESCRIPTOR_ATOMICS:
            return BoundMethod(_DESCRIPTOR_ATOMICS[attr], obj)
        if attr in ("gather", "scatter"):
            method = rows._descriptor_gather if attr == "gather" else rows._descriptor_scatter
            return BoundMethod(method, obj)
        if attr == "block_shape":
            return obj.block_shape
        if attr == "dtype":
            return obj.dtype.element  # type: ignore[union-attr]
        if attr in ("shape", "strides"):
            return getattr(obj, attr)
    if isinstance(obj, BlockPointer) and attr in ("block_shape", "order"):
        return getattr(obj, attr)
    if isinstance(obj, BlockPointer) and attr == "dtype":
        # Triton's: a pointer to the block (``.element_ty`` is the block type)
        return T.PointerType(T.TileType(obj.block_shape, obj.dtype.element))  # type: ignore[arg-type,union-attr]
    raise TileTypeError(f"{type(obj).__name__} has no attribute '{attr}'")


@builtin()
def load_tensor_descriptor(ctx: Any, desc: Any, offsets: Any) -> Tensor:
    """``tl.load_tensor_descriptor(desc, offsets)``: the same as ``desc.load(offsets)``."""
    return _descriptor_load.impl(ctx, _descriptor(desc), offsets)


@builtin()
def store_tensor_descriptor(ctx: Any, desc: Any, offsets: Any, value: Any) -> None:
    """``tl.store_tensor_descriptor(desc, offsets, value)``: ``desc.store(offsets, value)``."""
    _descriptor_store.impl(ctx, _descriptor(desc), offsets, value)


def _descriptor(desc: Any) -> TensorDescriptor:
    d = unwrap(desc)
    if not isinstance(d, TensorDescriptor):
        raise TileTypeError(f"expected a tensor descriptor, got {S.describe(d)}")
    return d
