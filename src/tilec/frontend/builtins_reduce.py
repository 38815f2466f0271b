"""Reductions, scans and dot: the builtins whose semantics live in a combine function or a
matrix product. ``sum``, ``max``, ``argmax``, ``cumsum`` ... are tl library code built on
``reduce`` and ``associative_scan`` (language/standard.py)."""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.ops import InputPrecision, ReduceOp, ScanOp
from ..ir.types import ScalarType
from . import fp8
from . import semantics as S
from .builtin import builtin
from .builtins_shape import _reshape, axis_arg, dtype_arg, tensor_arg
from .values import Tensor, unwrap


def _inputs(ctx: Any, input: Any) -> tuple[list[Tensor], bool]:
    x = unwrap(input)
    many = isinstance(x, (tuple, list))
    items = [tensor_arg(ctx, v) for v in (x if many else [x])]
    if not items:
        raise TileTypeError("reduce needs at least one tensor")
    shape = items[0].shape
    if any(t.shape != shape for t in items) or not shape:
        raise TileTypeError(
            f"reduce inputs must be tiles of one shape, got {[list(t.shape) for t in items]}"
        )
    return items, many


def _fill_combine(ctx: Any, op: ReduceOp | ScanOp, items: list[Tensor], combine_fn: Any) -> None:
    block = op.combine
    with ctx.b.at_end_of(block):
        args = [Tensor(a) for a in block.args]
        out = unwrap(ctx.call(combine_fn, args, {}))
        out_list = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(out_list) != len(items):
            raise TileTypeError(
                f"the combine function returns {len(out_list)} values for {len(items)} inputs"
            )
        vals = []
        for v, t in zip(out_list, items):
            v = S.to_tensor(ctx.b, unwrap(v))
            if v.shape:
                raise TileTypeError("the combine function must return scalars")
            vals.append(S.cast(ctx.b, v, t.dtype).value)
        ctx.b.yield_(vals)


@builtin(member=True)
def reduce(ctx: Any, input: Any, axis: Any, combine_fn: Any, keep_dims: Any = False) -> Any:
    """Reduce ``input`` (a tensor or a tuple of them) along ``axis`` with ``combine_fn``."""
    items, many = _inputs(ctx, input)
    rank = len(items[0].shape)
    if unwrap(axis) is None:
        flat = [_reshape(ctx, t, (t.numel,), True) for t in items]
        res = reduce.impl(ctx, tuple(flat) if many else flat[0], 0, combine_fn)
        if unwrap(keep_dims):
            res_l = list(res) if many else [res]
            res_l = [_reshape(ctx, r, (1,) * rank, False) for r in res_l]
            return tuple(res_l) if many else res_l[0]
        return res
    ax = axis_arg(axis, rank)
    op = ctx.b.reduce([t.value for t in items], ax)
    _fill_combine(ctx, op, items, combine_fn)
    results = [Tensor(r) for r in op.results]
    if unwrap(keep_dims):
        results = [
            Tensor(ctx.b.expand_dims(r.value, ax))
            if r.shape
            else Tensor(ctx.b.splat(r.value, (1,)))
            for r in results
        ]
    return tuple(results) if many else results[0]


@builtin(member=True)
def associative_scan(ctx: Any, input: Any, axis: Any, combine_fn: Any, reverse: Any = False) -> Any:
    """Inclusive scan of ``input`` along ``axis`` with the associative ``combine_fn``."""
    items, many = _inputs(ctx, input)
    ax = axis_arg(axis, len(items[0].shape))
    op = ctx.b.scan([t.value for t in items], ax, bool(unwrap(reverse)))
    _fill_combine(ctx, op, items, combine_fn)
    results = [Tensor(r) for r in op.results]
    return tuple(results) if many else results[0]


def _dot_types(a: Tensor, b: Tensor, out_dtype: Any) -> ScalarType:
    ta, tb = a.dtype, b.dtype
    if ta != tb:
        raise TileTypeError(f"dot operands must have the same dtype, got {ta} and {tb}")
    assert isinstance(ta, ScalarType)
    if ta.is_int():
        if ta not in (T.int8, T.uint8):
            raise TileTypeError(f"integer dot needs int8 operands, got {ta}")
        return T.int32
    out = dtype_arg(out_dtype, "out_dtype") if unwrap(out_dtype) is not None else T.float32
    if ta == T.float64:
        return T.float64
    if out not in (T.float32, T.float16, T.bfloat16, T.float64):
        raise TileTypeError(f"dot's out_dtype must be a float type, got {out}")
    if out in (T.float16, T.bfloat16) and ta != out:
        raise TileTypeError(f"out_dtype {out} needs {out} operands, got {ta}")
    return out  # type: ignore[return-value]


def _flat_batch_dot(ctx: Any, a: Tensor, b: Tensor, acc: Any, *options: Any) -> Tensor:
    """A dot of rank 4 or more, as Triton computes it: the batch dimensions flattened into
    one, a 3-D dot, and the result reshaped back."""
    batch, m, k, n = a.shape[:-2], a.shape[-2], a.shape[-1], b.shape[-1]
    count = 1
    for d in batch:
        count *= d
    a = _reshape(ctx, a, (count, m, k), False)
    b = _reshape(ctx, b, (count, k, n), False)
    if unwrap(acc) is not None:
        c = tensor_arg(ctx, unwrap(acc), "acc")
        if c.shape != (*batch, m, n):
            raise TileTypeError(
                f"dot's acc must be a {[*batch, m, n]} tile, got shape {list(c.shape)}"
            )
        acc = _reshape(ctx, c, (count, m, n), False)
    flat = dot.invoke(ctx, [a, b, acc, *options], {})
    return _reshape(ctx, flat, (*batch, m, n), False)


@builtin()
def dot(
    ctx: Any,
    input: Any,
    other: Any,
    acc: Any = None,
    input_precision: Any = None,
    allow_tf32: Any = None,
    max_num_imprecise_acc: Any = None,
    out_dtype: Any = None,
) -> Tensor:
    """``acc + input @ other`` for 2-D (or batched 3-D) tiles. Without ``out_dtype`` the
    result has the accumulator's dtype, fp32 when there is none (as in Triton)."""
    a, b = tensor_arg(ctx, input), tensor_arg(ctx, other, "other")
    if len(a.shape) < 2 or len(a.shape) != len(b.shape):
        raise TileTypeError(
            "dot needs two 2-D or 3-D tiles (or batches of them of one rank), got shapes "
            f"{list(a.shape)} and {list(b.shape)}"
        )
    if a.shape[-1] != b.shape[-2] or a.shape[:-2] != b.shape[:-2]:
        raise TileTypeError(f"dot shapes {list(a.shape)} @ {list(b.shape)} do not match")
    if len(a.shape) > 3:
        args = (acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
        return _flat_batch_dot(ctx, a, b, *args)
    imprecise = unwrap(max_num_imprecise_acc)
    if a.dtype in fp8.FORMATS and b.dtype in fp8.FORMATS:
        if imprecise is not None and imprecise > a.shape[-1]:
            raise TileTypeError(f"max_num_imprecise_acc ({imprecise}) must be <= K ({a.shape[-1]})")
        # every fp8 value is an fp16, and fp16 products are exact in fp32: an fp16 dot of the
        # decoded operands accumulates all of K in full fp32 precision (max_num_imprecise_acc
        # only bounds how much of it Hopper's fp8 MMA may add at reduced precision)
        a, b = S.cast(ctx.b, a, T.float16), S.cast(ctx.b, b, T.float16)
        imprecise = None
    acc_v = unwrap(acc)
    if unwrap(out_dtype) is None and acc_v is not None:
        out_dtype = tensor_arg(ctx, acc_v, "acc").dtype
    ret = _dot_types(a, b, out_dtype)
    shape = (*a.shape[:-1], b.shape[-1])
    given = unwrap(input_precision)
    if given is None:
        given = "ieee" if unwrap(allow_tf32) is False else "tf32"
    try:
        precision = InputPrecision(given)
    except ValueError:
        names = [p.value for p in InputPrecision]
        raise TileTypeError(
            f"input_precision {given!r} is not supported; use one of {names}"
        ) from None
    if acc_v is None:
        c = S.broadcast_to(ctx.b, S.constant(ctx.b, 0, ret), shape)
    else:
        c = tensor_arg(ctx, acc_v, "acc")
        if c.shape != shape or c.dtype != ret:
            raise TileTypeError(f"dot's acc must be a {list(shape)} {ret} tile, got {c.type}")
    return Tensor(ctx.b.dot(a.value, b.value, c.value, precision, imprecise))
