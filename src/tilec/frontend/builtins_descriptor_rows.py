"""``desc.gather(x_offsets, y_offset)`` and ``desc.scatter(value, x_offsets, y_offset)``: a 2-D
tensor descriptor of one-row blocks read or written at many rows at once (Triton's TMA gather and
scatter), lowered like descriptor loads to a pointer tile and an in-bounds mask.

Row ``i`` of the result is row ``x_offsets[i]`` of the array, columns ``y_offset`` to
``y_offset + block_shape[1]``. Out-of-bounds elements read as the descriptor's padding and are
not written. Triton's shape rules (one-row blocks, int16/int32 row offsets, at least 8 rows and
32 bytes' worth of 8 columns) are checked, so a kernel valid here is valid on a GPU.
"""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from . import arith
from . import semantics as S
from .builtin import builtin
from .builtins_shape import tensor_arg
from .pointers import load_pointers, padding_value, store_pointers
from .values import Tensor, TensorDescriptor, unwrap


def _check(desc: TensorDescriptor, x_offsets: Tensor, what: str) -> None:
    block = desc.block_shape
    if len(block) != 2:
        raise TileTypeError(f"descriptor must be 2D, but got {list(block)}")
    if block[0] != 1:
        raise TileTypeError(f"descriptor block must have 1 row, but got {list(block)}")
    if len(x_offsets.shape) != 1:
        raise TileTypeError(f"x offsets must be 1D, but got {list(x_offsets.shape)}")
    if x_offsets.dtype not in (T.int16, T.int32):
        raise TileTypeError(f"x offsets must have dtype int16 or int32, but got {x_offsets.dtype}")
    if x_offsets.shape[0] < 8:
        raise TileTypeError(
            f"descriptor {what} must have at least 8 rows, but got {list(x_offsets.shape)}"
        )
    elem = desc.dtype.element  # type: ignore[union-attr]
    min_cols = 32 // elem.primitive_bitwidth * 8
    if block[1] < min_cols:
        raise TileTypeError(
            f"descriptor {what} of {elem} must have at least {min_cols} columns, but got {block[1]}"
        )


def _rows_window(
    ctx: Any, desc: TensorDescriptor, x_offsets: Tensor, y_offset: Any
) -> tuple[Tensor, Tensor]:
    """Pointers to the [rows, cols] window and the mask of its in-bounds elements."""
    b = ctx.b
    rows_n, cols_n = x_offsets.shape[0], desc.block_shape[1]
    shape = (rows_n, cols_n)
    y = tensor_arg(ctx, y_offset, "y offset")
    if y.shape or not y.dtype.is_int():  # type: ignore[union-attr]
        raise TileTypeError(f"y offset must be an integer scalar, got {y.type}")
    y = S.cast(b, y, T.int64)
    rows = Tensor(b.expand_dims(S.cast(b, x_offsets, T.int64).value, 1))
    cols = arith.add(b, y, S.cast(b, Tensor(b.make_range(0, cols_n)), T.int64))
    cols = Tensor(b.expand_dims(cols.value, 0))
    ptr = S.broadcast_to(b, desc.base, shape)
    ptr = arith.addptr(b, ptr, S.broadcast_to(b, arith.mul(b, rows, desc.strides[0]), shape))
    ptr = arith.addptr(b, ptr, S.broadcast_to(b, arith.mul(b, cols, desc.strides[1]), shape))
    mask = None
    for idx, extent in ((rows, desc.shape[0]), (cols, desc.shape[1])):
        ok = arith.logical(
            b, True, arith.compare(b, "ge", idx, 0), arith.compare(b, "lt", idx, extent)
        )
        ok = S.broadcast_to(b, ok, shape)
        mask = ok if mask is None else arith.logical(b, True, mask, ok)
    assert mask is not None
    return ptr, mask


def _two_offsets(args: tuple[Any, ...], what: str) -> tuple[Any, Any]:
    if len(args) != 2:
        raise TileTypeError(f"descriptor {what} only supports 2D indexing, but got {len(args)}")
    return args[0], args[1]


@builtin()
def _descriptor_gather(ctx: Any, desc: Any, *args: Any) -> Tensor:
    """``desc.gather(x_offsets, y_offset)``: rows ``x_offsets`` of the columns at ``y_offset``."""
    x_offsets, y_offset = _two_offsets(args, "gather")
    rows = tensor_arg(ctx, x_offsets, "x offsets")
    _check(desc, rows, "gather")
    ptr, mask = _rows_window(ctx, desc, rows, y_offset)
    return load_pointers(ctx, ptr, mask, padding_value(ctx, desc.padding, desc.dtype.element))


@builtin()
def _descriptor_scatter(ctx: Any, desc: Any, value: Any, *args: Any) -> None:
    """``desc.scatter(value, x_offsets, y_offset)``: row ``i`` of ``value`` written to row
    ``x_offsets[i]`` at the columns from ``y_offset`` (the in-bounds part only)."""
    x_offsets, y_offset = _two_offsets(args, "scatter")
    rows = tensor_arg(ctx, x_offsets, "x offsets")
    _check(desc, rows, "scatter")
    v = unwrap(value)
    expected = (rows.shape[0], desc.block_shape[1])
    if isinstance(v, Tensor) and v.shape != expected:
        raise TileTypeError(
            f"descriptor scatter of {list(v.shape)} values needs shape {list(expected)}"
        )
    ptr, mask = _rows_window(ctx, desc, rows, y_offset)
    v = S.cast(ctx.b, tensor_arg(ctx, v, "value"), desc.dtype.element)  # type: ignore[union-attr]
    store_pointers(ctx, ptr, v, mask)
