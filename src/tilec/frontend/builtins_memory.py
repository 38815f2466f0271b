"""Memory builtins: load/store through pointer tiles, atomics, block pointers, descriptors.

Block pointers and tensor descriptors never reach the IR: a load or store through one becomes
a pointer tile (base + Σ (offset_d + arange) * stride_d, in i64) with a bounds mask.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.ops import AtomicKind
from ..ir.types import PointerType, ScalarType
from . import arith
from . import semantics as S
from .builtin import BoundMethod, builtin
from .builtins_shape import shape_arg
from .values import BlockPointer, Tensor, TensorDescriptor, unwrap

_LOAD_CACHE = ("", ".ca", ".cg", ".cv")
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


def _mask(ctx: Any, mask: Any, shape: tuple[int, ...], what: str) -> Tensor | None:
    mask = unwrap(mask)
    if mask is None:
        return None
    m = arith.to_bool(ctx.b, mask)
    if m.shape and not shape:
        raise TileTypeError(f"{what} cannot be a tile when the pointer is a scalar")
    return S.broadcast_to(ctx.b, m, shape)


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
    m = _mask(ctx, mask, ptr.shape, "load's mask")
    if m is not None and m.shape != ptr.shape:
        ptr = S.broadcast_to(ctx.b, ptr, m.shape)
    ptr, was_bool = _as_i8_if_bool(ctx, ptr)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    o = None
    if unwrap(other) is not None:
        other_t = unwrap(other)
        if other_t is not None and not isinstance(other_t, Tensor):
            other_t = S.constant(ctx.b, other_t, elem)
        o = S.broadcast_to(ctx.b, S.cast(ctx.b, other_t, elem), ptr.shape)
        if o.shape and not ptr.shape:
            raise TileTypeError("load's other cannot be a tile when the pointer is a scalar")
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
    return S.cast(ctx.b, result, T.int1) if was_bool else result


def store_pointers(
    ctx: Any, ptr: Tensor, value: Any, mask: Any, cache: str = "", eviction: str = ""
) -> None:
    v = unwrap(value)
    v = v if isinstance(v, Tensor) else S.to_tensor(ctx.b, v)
    if v.shape and not ptr.shape:
        raise TileTypeError("cannot store a tile through a scalar pointer")
    m = _mask(ctx, mask, ptr.shape, "store's mask")
    if v.shape and v.shape != ptr.shape:
        ptr = S.broadcast_to(ctx.b, ptr, S.broadcast_shapes(ptr.shape, v.shape))
    if m is not None and m.shape != ptr.shape:
        m = S.broadcast_to(ctx.b, m, ptr.shape)
    ptr, was_bool = _as_i8_if_bool(ctx, ptr)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    v = S.broadcast_to(ctx.b, S.cast(ctx.b, v, T.int1 if was_bool else elem), ptr.shape)
    if was_bool:
        v = S.cast(ctx.b, v, T.int8)
    ctx.b.store(ptr.value, v.value, m.value if m is not None else None, cache, eviction)


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
    if isinstance(p, BlockPointer):
        if unwrap(mask) is not None:
            raise TileTypeError("mask cannot be used with block pointers; use boundary_check")
        return block_store(ctx, p, value, boundary_check, cache, eviction)
    if unwrap(boundary_check):
        raise TileTypeError("boundary_check applies only to block pointers")
    store_pointers(ctx, _pointer(p, "store"), value, mask, cache, eviction)
    return None


# -- atomics -------------------------------------------------------------------------------
_SEMS = ("acq_rel", "acquire", "release", "relaxed")
_SCOPES = ("gpu", "cta", "sys")


def _sem_scope(sem: Any, scope: Any) -> tuple[str, str]:
    s, sc = unwrap(sem) or "acq_rel", unwrap(scope) or "gpu"
    if s not in _SEMS:
        raise TileTypeError(f"sem {s!r} is not supported; use one of {list(_SEMS)}")
    if sc not in _SCOPES:
        raise TileTypeError(f"scope {sc!r} is not supported; use one of {list(_SCOPES)}")
    return s, sc


def _atomic_operands(
    ctx: Any, pointer: Any, val: Any, mask: Any, what: str
) -> tuple[Tensor, Tensor, Tensor | None]:
    ptr = _pointer(pointer, what)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    if not isinstance(elem, ScalarType) or elem.is_bool():
        raise TileTypeError(f"{what} does not support {elem} elements")
    v = unwrap(val)
    v = v if isinstance(v, Tensor) else S.constant(ctx.b, v, elem)
    if v.shape and not ptr.shape:
        raise TileTypeError(f"{what}: a tile value needs a tile of pointers")
    if v.shape != ptr.shape:
        ptr = S.broadcast_to(ctx.b, ptr, S.broadcast_shapes(ptr.shape, v.shape))
    v = S.broadcast_to(ctx.b, S.cast(ctx.b, v, elem), ptr.shape)
    m = _mask(ctx, mask, ptr.shape, f"{what}'s mask")
    return ptr, v, m


def _rmw(kind: AtomicKind, name: str, ints_only: bool = False) -> Any:
    def impl(
        ctx: Any, pointer: Any, val: Any, mask: Any = None, sem: Any = None, scope: Any = None
    ) -> Tensor:
        ptr, v, m = _atomic_operands(ctx, pointer, val, mask, name)
        if ints_only and not v.dtype.is_int():
            raise TileTypeError(f"{name} needs integer elements, got {v.dtype}")
        s, sc = _sem_scope(sem, scope)
        return Tensor(
            ctx.b.atomic_rmw(kind, ptr.value, v.value, m.value if m is not None else None, s, sc)
        )

    impl.__doc__ = f"Atomic {kind.value}: returns the old values."
    return builtin(name, member=True)(impl)


atomic_add = _rmw(AtomicKind.ADD, "atomic_add")
atomic_max = _rmw(AtomicKind.MAX, "atomic_max")
atomic_min = _rmw(AtomicKind.MIN, "atomic_min")
atomic_and = _rmw(AtomicKind.AND, "atomic_and", ints_only=True)
atomic_or = _rmw(AtomicKind.OR, "atomic_or", ints_only=True)
atomic_xor = _rmw(AtomicKind.XOR, "atomic_xor", ints_only=True)
atomic_xchg = _rmw(AtomicKind.XCHG, "atomic_xchg")


@builtin(member=True)
def atomic_cas(
    ctx: Any, pointer: Any, cmp: Any, val: Any, sem: Any = None, scope: Any = None
) -> Tensor:
    """Atomic compare-and-swap: returns the old values."""
    ptr, v, _ = _atomic_operands(ctx, pointer, val, None, "atomic_cas")
    ptr, c, _ = _atomic_operands(ctx, ptr, cmp, None, "atomic_cas")
    if v.shape != ptr.shape:
        v = S.broadcast_to(ctx.b, v, ptr.shape)
    s, sc = _sem_scope(sem, scope)
    return Tensor(ctx.b.atomic_cas(ptr.value, c.value, v.value, s, sc))


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


def _boundary(value: Any, rank: int) -> set[int]:
    v = unwrap(value)
    dims = list(v) if isinstance(v, (tuple, list)) else ([] if v is None else [v])
    out = {int(unwrap(d)) for d in dims}
    if any(not 0 <= d < rank for d in out):
        raise TileTypeError(f"boundary_check dims {sorted(out)} out of range for rank {rank}")
    return out


def _padding(ctx: Any, padding: Any, elem: Any) -> Any:
    p = unwrap(padding) or ""
    if p not in ("", "zero", "nan"):
        raise TileTypeError(f"padding_option {p!r} is not supported; use 'zero' or 'nan'")
    if p == "nan":
        if not elem.is_floating():
            raise TileTypeError("padding_option 'nan' needs a floating-point block")
        return float("nan")
    return 0


def block_load(
    ctx: Any, bp: BlockPointer, boundary_check: Any, padding: Any, cache: str, eviction: str
) -> Tensor:
    checked = _boundary(boundary_check, len(bp.block_shape))
    ptr, mask = _window(ctx, bp.base, bp.shape, bp.strides, bp.offsets, bp.block_shape, checked)
    other = _padding(ctx, padding, bp.dtype.element) if mask is not None else None  # type: ignore[union-attr]
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


@builtin()
def make_tensor_descriptor(
    ctx: Any, base: Any, shape: Any, strides: Any, block_shape: Any, padding_option: Any = "zero"
) -> TensorDescriptor:
    """A descriptor for loading and storing ``block_shape`` blocks of a strided array."""
    p = _pointer(base, "make_tensor_descriptor")
    blk = shape_arg(block_shape, "block_shape")
    n = len(blk)
    pad = unwrap(padding_option) or "zero"
    _padding(ctx, pad, p.dtype.element)  # type: ignore[union-attr]
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
    ptr, mask = _window(
        ctx,
        desc.base,
        desc.shape,
        desc.strides,
        _desc_offsets(ctx, desc, offsets),
        desc.block_shape,
        set(range(len(desc.block_shape))),
    )
    other = _padding(ctx, desc.padding, desc.dtype.element)
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
    ptr, mask = _window(
        ctx,
        desc.base,
        desc.shape,
        desc.strides,
        _desc_offsets(ctx, desc, offsets),
        desc.block_shape,
        set(range(len(desc.block_shape))),
    )
    v = unwrap(value)
    if isinstance(v, Tensor) and v.shape != desc.block_shape:
        raise TileTypeError(
            f"storing a {list(v.shape)} tile through a descriptor of block "
            f"shape {list(desc.block_shape)}"
        )
    store_pointers(ctx, ptr, v, mask)


def struct_attribute(obj: Any, attr: str) -> Any:
    """Attributes and methods of block pointers and tensor descriptors."""
    if isinstance(obj, TensorDescriptor):
        if attr == "load":
            return BoundMethod(_descriptor_load, obj)
        if attr == "store":
            return BoundMethod(_descriptor_store, obj)
        if attr == "block_shape":
            return obj.block_shape
        if attr == "dtype":
            return obj.dtype.element  # type: ignore[union-attr]
        if attr in ("shape", "strides"):
            return getattr(obj, attr)
    if isinstance(obj, BlockPointer) and attr in ("block_shape", "order"):
        return getattr(obj, attr)
    raise TileTypeError(f"{type(obj).__name__} has no attribute '{attr}'")
