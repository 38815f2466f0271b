"""Creation and shape builtins: program ids, arange, full, casts, reshapes, joins, indexing.

Also the tensor attributes kernels read (``x.dtype``, ``x.shape``, ``x.T``) and ``x[None, :]``.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConstexprError, TileTypeError
from ..ir import types as T
from ..ir.types import Element, PointerType, ScalarType, TileType
from . import fp8
from . import semantics as S
from .builtin import builtin
from .values import Tensor, unwrap


def _const_int(x: Any, what: str) -> int:
    x = unwrap(x)
    if isinstance(x, Tensor):
        raise ConstexprError(f"{what} must be a compile-time constant (tl.constexpr)")
    if not isinstance(x, int) or isinstance(x, bool):
        raise TileTypeError(f"{what} must be an int, got {S.describe(x)}")
    return x


def shape_arg(shape: Any, what: str = "shape") -> tuple[int, ...]:
    """A compile-time shape: an int or a tuple/list of ints, each a power of two."""
    shape = unwrap(shape)
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    out = tuple(_const_int(d, f"every dimension of {what}") for d in dims)
    for d in out:
        if d <= 0 or d & (d - 1):
            raise TileTypeError(f"{what} {list(out)} has a dimension that is not a power of 2")
    return out


def _varargs_shape(shape: tuple[Any, ...], what: str) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(unwrap(shape[0]), (tuple, list)):
        return shape_arg(shape[0], what)
    return shape_arg(tuple(shape), what)


def dtype_arg(dtype: Any, what: str = "dtype", *, any_fp8: bool = False) -> Element:
    """A tl dtype argument; fp8 types only where the caller checks them itself (casts)."""
    dtype = unwrap(dtype)
    if not isinstance(dtype, (ScalarType, PointerType)):
        raise TileTypeError(f"{what} must be a tl dtype, got {S.describe(dtype)}")
    return dtype if any_fp8 else S.require_supported(dtype)


def tensor_arg(ctx: Any, x: Any, what: str = "input") -> Tensor:
    x = unwrap(x)
    if isinstance(x, Tensor):
        return x
    if S.is_number(x):
        return S.to_tensor(ctx.b, x)
    raise TileTypeError(f"{what} must be a tensor, got {S.describe(x)}")


def axis_arg(axis: Any, rank: int) -> int:
    a = _const_int(axis, "axis")
    if not -rank <= a < rank:
        raise TileTypeError(
            f"invalid axis {a}: a tensor of rank {rank} has axes {-rank}..{rank - 1}"
        )
    return a % rank


@builtin()
def program_id(ctx: Any, axis: Any) -> Tensor:
    """The index of this program along ``axis`` of the grid."""
    a = _const_int(axis, "axis")
    if a not in (0, 1, 2):
        raise TileTypeError(f"program_id axis must be 0, 1, or 2 but got {a}")
    return Tensor(ctx.b.program_id(a))


@builtin()
def num_programs(ctx: Any, axis: Any) -> Tensor:
    """The number of programs along ``axis`` of the grid."""
    a = _const_int(axis, "axis")
    if a not in (0, 1, 2):
        raise TileTypeError(f"num_programs axis must be 0, 1 or 2, got {a}")
    return Tensor(ctx.b.num_programs(a))


@builtin()
def arange(ctx: Any, start: Any, end: Any) -> Tensor:
    """``[start, ..., end-1]`` as i32; ``end - start`` must be a power of 2."""
    lo, hi = _const_int(start, "arange's start"), _const_int(end, "arange's end")
    if lo >= 2**31 or hi > 2**31 or lo < -(2**31):
        raise TileTypeError("arange's bounds must fit in int32")
    if hi <= lo:
        raise TileTypeError(f"arange's end ({hi}) must be greater than its start ({lo})")
    n = hi - lo
    if n & (n - 1):
        raise TileTypeError(f"arange's range must be a power of 2, got {n} (from {lo} to {hi})")
    return Tensor(ctx.b.make_range(lo, hi))


@builtin()
def full(ctx: Any, shape: Any, value: Any, dtype: Any) -> Tensor:
    """A tile of ``shape`` filled with ``value`` converted to ``dtype``."""
    dims = shape_arg(shape)
    dt = dtype_arg(dtype, any_fp8=True)
    value = unwrap(value)
    if dt in fp8.FORMATS:  # fp8 values are bit patterns: the value is encoded from fp32
        return S.cast(ctx.b, full.impl(ctx, dims, value, T.float32), dt)
    if isinstance(value, Tensor):
        if value.shape:
            raise TileTypeError("full's value must be a scalar")
        v = S.cast(ctx.b, value, dt)
    else:
        v = S.constant(ctx.b, value, dt)  # type: ignore[arg-type]
    return S.broadcast_to(ctx.b, v, dims) if dims else v


@builtin()
def zeros(ctx: Any, shape: Any, dtype: Any) -> Tensor:
    """A tile of ``shape`` filled with zeros of ``dtype``."""
    return full.impl(ctx, shape, 0, dtype)


@builtin(member=True)
def cast(
    ctx: Any, input: Any, dtype: Any, fp_downcast_rounding: Any = None, bitcast: Any = False
) -> Tensor:
    """``input`` converted to ``dtype`` (or reinterpreted when ``bitcast``)."""
    x = tensor_arg(ctx, input)
    if isinstance(unwrap(dtype), TileType):  # as in Triton, a block type casts to its element
        dtype = unwrap(dtype).element
    dt = dtype_arg(dtype, any_fp8=True)
    if unwrap(bitcast):
        return S.bitcast(ctx.b, x, dt)
    return S.cast(ctx.b, x, dt, unwrap(fp_downcast_rounding))


@builtin("to", member=True)
def to(
    ctx: Any, self: Any, dtype: Any, fp_downcast_rounding: Any = None, bitcast: Any = False
) -> Tensor:
    """``x.to(dtype)``."""
    return cast.impl(ctx, self, dtype, fp_downcast_rounding, bitcast)


@builtin(member=True)
def broadcast_to(ctx: Any, input: Any, *shape: Any) -> Tensor:
    """``input`` broadcast to ``shape``."""
    return S.broadcast_to(ctx.b, tensor_arg(ctx, input), _varargs_shape(shape, "shape"))


@builtin()
def broadcast(ctx: Any, input: Any, other: Any) -> tuple[Tensor, Tensor]:
    """Both tensors broadcast to their common shape."""
    return S.broadcast_pair(ctx.b, tensor_arg(ctx, input), tensor_arg(ctx, other, "other"))


@builtin(member=True)
def expand_dims(ctx: Any, input: Any, axis: Any) -> Tensor:
    """Insert size-1 dimensions at ``axis`` (an int or a sequence of ints)."""
    x = tensor_arg(ctx, input)
    axes = unwrap(axis)
    axes = list(axes) if isinstance(axes, (tuple, list)) else [axes]
    rank = len(x.shape) + len(axes)
    normalized = [axis_arg(a, rank) for a in axes]
    if len(set(normalized)) != len(normalized):
        raise TileTypeError(f"expand_dims: duplicate axes, normalized axes = {normalized}")
    norm = sorted(normalized)
    v = x
    for a in norm:
        v = Tensor(ctx.b.expand_dims(v.value, a)) if v.shape else Tensor(ctx.b.splat(v.value, (1,)))
    return v


def _reshape(ctx: Any, x: Tensor, dims: tuple[int, ...], can_reorder: bool) -> Tensor:
    n = 1
    for d in dims:
        n *= d
    if n != x.numel:
        raise TileTypeError(
            f"cannot reshape {list(x.shape)} ({x.numel} elements) to {list(dims)} ({n} elements)"
        )
    if not x.shape:
        return Tensor(ctx.b.splat(x.value, dims)) if dims else x
    if x.shape == dims:
        return x
    return Tensor(ctx.b.reshape(x.value, dims, can_reorder))


@builtin(member=True)
def reshape(ctx: Any, input: Any, *shape: Any, can_reorder: Any = False) -> Tensor:
    """``input`` with a new shape of the same number of elements."""
    dims = _varargs_shape(shape, "shape") if shape and unwrap(shape[0]) != () else ()
    return _reshape(ctx, tensor_arg(ctx, input), dims, bool(unwrap(can_reorder)))


def unsplat(ctx: Any, x: Tensor, what: str) -> Tensor:
    """A one-element tile as a scalar: a reduction over its element, which every backend
    lowers (a reshape to rank 0 would be a new case for each)."""
    if not x.shape:
        return x
    if x.numel != 1:
        raise TileTypeError(f"{what} must be a scalar or a one-element tensor, got a {x.type} tile")
    op = ctx.b.reduce([_reshape(ctx, x, (1,), False).value], 0)
    with ctx.b.at_end_of(op.combine):
        ctx.b.yield_([op.combine.args[0]])
    return Tensor(op.results[0])


@builtin(member=True)
def item(ctx: Any, input: Any) -> Tensor:
    """The value of a one-element tensor as a scalar."""
    return unsplat(ctx, tensor_arg(ctx, input), "item's input")


@builtin(member=True)
def view(ctx: Any, input: Any, *shape: Any) -> Tensor:
    """Like reshape, but the element order may change."""
    return _reshape(ctx, tensor_arg(ctx, input), _varargs_shape(shape, "shape"), True)


@builtin(member=True)
def ravel(ctx: Any, x: Any, can_reorder: Any = False) -> Tensor:
    """``x`` flattened to one dimension."""
    t = tensor_arg(ctx, x)
    return _reshape(ctx, t, (t.numel,), bool(unwrap(can_reorder)))


def _permute(ctx: Any, x: Tensor, dims: tuple[int, ...]) -> Tensor:
    if sorted(dims) != list(range(len(x.shape))):
        raise TileTypeError(
            f"permute dims {list(dims)} are not a permutation of 0..{len(x.shape) - 1}"
        )
    if dims == tuple(range(len(dims))):
        return x
    return Tensor(ctx.b.trans(x.value, dims))


def _dims(dims: tuple[Any, ...]) -> tuple[int, ...]:
    if len(dims) == 1 and isinstance(unwrap(dims[0]), (tuple, list)):
        dims = tuple(unwrap(dims[0]))
    return tuple(_const_int(d, "a permutation dimension") for d in dims)


@builtin(member=True)
def trans(ctx: Any, input: Any, *dims: Any) -> Tensor:
    """Transpose: with no ``dims``, swap the last two dimensions (a batched 2-D transpose)."""
    x = tensor_arg(ctx, input)
    d = _dims(dims)
    if not d:
        n = len(x.shape)
        if n < 2:
            raise TileTypeError(
                f"trans without dims needs a 2-D tile (or a batch of them), got shape {list(x.shape)}"
            )
        d = (*range(n - 2), n - 1, n - 2)
    return _permute(ctx, x, d)


@builtin(member=True)
def permute(ctx: Any, input: Any, *dims: Any) -> Tensor:
    """Reorder dimensions: result dimension i is input dimension ``dims[i]``."""
    return _permute(ctx, tensor_arg(ctx, input), _dims(dims))


@builtin(member=True)
def join(ctx: Any, a: Any, b: Any) -> Tensor:
    """Stack ``a`` and ``b`` along a new minor dimension of size 2."""
    x, y = S.broadcast_pair(ctx.b, tensor_arg(ctx, a, "a"), tensor_arg(ctx, b, "b"))
    if x.dtype != y.dtype:
        raise TileTypeError(f"join needs equal dtypes, got {x.dtype} and {y.dtype}")
    if not x.shape:
        x, y = Tensor(ctx.b.splat(x.value, (1,))), Tensor(ctx.b.splat(y.value, (1,)))
        return _reshape(ctx, Tensor(ctx.b.join(x.value, y.value)), (2,), False)
    return Tensor(ctx.b.join(x.value, y.value))


@builtin(member=True)
def split(ctx: Any, a: Any) -> tuple[Tensor, Tensor]:
    """The inverse of join: split the minor dimension (of size 2) in two."""
    x = tensor_arg(ctx, a, "a")
    if not x.shape or x.shape[-1] != 2:
        raise TileTypeError(f"split needs a minor dimension of size 2, got shape {list(x.shape)}")
    lo, hi = ctx.b.split(x.value)
    return Tensor(lo), Tensor(hi)


@builtin()
def cat(ctx: Any, input: Any, other: Any, can_reorder: Any = False, dim: Any = 0) -> Tensor:
    """Concatenate along ``dim``: the IR concatenates along dimension 0, so another dimension
    is moved to the front and back."""
    x, y = tensor_arg(ctx, input), tensor_arg(ctx, other, "other")
    if x.type != y.type or not x.shape:
        raise TileTypeError(f"cat needs two tiles of the same type, got {x.type} and {y.type}")
    d = axis_arg(_const_int(dim, "dim"), len(x.shape))
    if d == 0:
        return Tensor(ctx.b.cat(x.value, y.value))
    order = (d, *[i for i in range(len(x.shape)) if i != d])
    x, y = _permute(ctx, x, order), _permute(ctx, y, order)
    joined = Tensor(ctx.b.cat(x.value, y.value))
    return _permute(ctx, joined, tuple(order.index(i) for i in range(len(order))))


@builtin(member=True)
def interleave(ctx: Any, a: Any, b: Any) -> Tensor:
    """Alternate the elements of ``a`` and ``b`` along the last dimension."""
    joined = join.impl(ctx, a, b)
    shape = joined.shape
    return _reshape(ctx, joined, (*shape[:-2], shape[-2] * 2) if len(shape) > 1 else (2,), False)


@builtin(member=True)
def flip(ctx: Any, x: Any, dim: Any = None) -> Tensor:
    """Reverse ``x`` along ``dim`` (the last dimension by default)."""
    t = tensor_arg(ctx, x, "x")
    if not t.shape:
        raise TileTypeError("flip needs a tile")
    axis = len(t.shape) - 1 if unwrap(dim) is None else axis_arg(dim, len(t.shape))
    return Tensor(ctx.b.flip(t.value, axis))


def subscript(ctx: Any, x: Tensor, index: Any) -> Tensor:
    """``x[None, :]``: ``None`` inserts a dimension, ``:`` keeps one."""
    items = unwrap(index)
    items = list(items) if isinstance(items, tuple) else [items]
    v, dim = x, 0
    for item in items:
        item = unwrap(item)
        if item is None:
            v = expand_dims.impl(ctx, v, dim)
            dim += 1
        elif isinstance(item, slice) and item == slice(None, None, None):
            dim += 1
        else:
            raise TileTypeError(
                f"unsupported tensor index {item!r}: tensors can be indexed only with None and ':'"
            )
    # as in Triton, a ':' past the last dimension keeps nothing and is accepted: a full
    # reduction with keep_dims stores through ``z_ptr[None, None, :]`` of a scalar pointer
    return v


def tensor_attribute(ctx: Any, x: Tensor, attr: str) -> Any:
    """``x.dtype``, ``x.shape``, ``x.type``, ``x.T``, ``x.numel``, ``x.ndim`` (None otherwise)."""
    if attr == "dtype":
        return x.dtype
    if attr == "shape":
        return x.shape
    if attr == "type":
        return x.type
    if attr == "numel":
        return x.numel
    if attr == "ndim":
        return len(x.shape)
    if attr == "T":
        return trans.impl(ctx, x)
    if attr == "element_ty":
        return x.dtype
    return None
