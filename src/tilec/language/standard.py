"""tl library functions written in tl: reductions, scans, softmax, sort, cdiv ...

Each is inlined into the calling kernel. Reductions follow Triton 3.9: ``sum`` of integers
narrower than 32 bits accumulates in (u)int32 (and of fp16/bf16 in fp32, rounded once); ``max``/``min`` compute sub-32-bit inputs in
fp32/int32; ``argmax``/``argmin`` skip NaN (as ``max``/``min`` do; a row of NaNs only gives
index 0) and break ties toward the lower index (the higher with ``tie_break_left=False``).
"""

# mypy: ignore-errors
# (tl code: run by the frontend, where tensors have methods mypy cannot see)
from __future__ import annotations

from ..constexpr import constexpr
from ..ir import types as _types
from . import core as tl
from .library import library


@library
def _sum_combine(a, b):
    return a + b


@library
def _prod_combine(a, b):
    return a * b


@library
def _xor_combine(a, b):
    return a ^ b


@library
def _max_combine(a, b):
    return tl.maximum(a, b)


@library
def _min_combine(a, b):
    return tl.minimum(a, b)


@library
def _argmax_combine(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@library
def _argmin_combine(v1, i1, v2, i2):
    take1 = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@library
def _argmax_combine_right(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 > i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@library
def _argmin_combine_right(v1, i1, v2, i2):
    take1 = (v1 < v2) | ((v1 == v2) & (i1 > i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


def _sum_dtype(in_dtype, dtype):
    if dtype is not None:
        return dtype
    if in_dtype.is_bool():
        return _types.int32
    if in_dtype.is_int_signed() and in_dtype.primitive_bitwidth < 32:
        return _types.int32
    if in_dtype.is_int_unsigned() and in_dtype.primitive_bitwidth < 32:
        return _types.uint32
    return in_dtype


def _minmax_dtype(in_dtype):
    if in_dtype.primitive_bitwidth < 32:
        return _types.float32 if in_dtype.is_floating() else _types.int32
    return in_dtype


@library(member=True)
def sum(input, axis=None, keep_dims=False, dtype: constexpr = None):
    out_dtype: constexpr = _sum_dtype(input.dtype, dtype)
    input = input.to(out_dtype)
    if out_dtype.is_fp16() or out_dtype.is_bf16():
        # 16-bit floats are added in fp32 and rounded once: a GPU adds them in a tree, whose
        # partial sums stay small, while one long chain of 16-bit additions stalls (1024
        # bf16 ones would sum to 256)
        return tl.reduce(input.to(tl.float32), axis, _sum_combine, keep_dims=keep_dims).to(
            out_dtype
        )
    return tl.reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@library(member=True)
def xor_sum(input, axis=None, keep_dims=False):
    tl.static_assert(input.dtype.is_int(), "xor_sum needs an integer tensor")
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@library
def _with_indices(input, axis, combine, keep_dims, worst, left):
    if axis is None:
        input = tl.ravel(input)
        axis = 0
        if keep_dims:
            tl.static_assert(False, "keep_dims with axis=None and return_indices is not supported")
    n = input.shape[axis]
    index = tl.arange(0, n)
    for _ in tl.static_range(axis):
        index = tl.expand_dims(index, 0)
    for _ in tl.static_range(len(input.shape) - axis - 1):
        index = tl.expand_dims(index, len(index.shape))
    index = tl.broadcast_to(index, input.shape)
    if not input.dtype.is_floating():
        return tl.reduce((input, index), axis, combine, keep_dims=keep_dims)
    # NaN is skipped, as max/min skip it: it becomes the worst value with an index past the
    # far end of the tie-break order, so a number (even an equal -inf/inf) wins and the
    # combine sees no NaN (it then is a total order: any combining order gives one answer)
    nan = input != input
    input = tl.where(nan, worst, input)
    index = tl.where(nan, index + n if left else index - n, index)
    value, index = tl.reduce((input, index), axis, combine, keep_dims=keep_dims)
    all_nan = (index >= n) | (index < 0)  # only NaNs: the first (last) of them
    value = tl.where(all_nan, float("nan"), value)
    index = tl.where(index >= n, index - n, tl.where(index < 0, index + n, index))
    return value, index


@library(member=True)
def max(
    input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False
):
    if return_indices:
        left = return_indices_tie_break_left
        combine = _argmax_combine if left else _argmax_combine_right
        return _with_indices(input, axis, combine, keep_dims, -float("inf"), left)
    input = input.to(_minmax_dtype(input.dtype))
    return tl.reduce(input, axis, _max_combine, keep_dims=keep_dims)


@library(member=True)
def min(
    input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False
):
    if return_indices:
        left = return_indices_tie_break_left
        combine = _argmin_combine if left else _argmin_combine_right
        return _with_indices(input, axis, combine, keep_dims, float("inf"), left)
    input = input.to(_minmax_dtype(input.dtype))
    return tl.reduce(input, axis, _min_combine, keep_dims=keep_dims)


@library(member=True)
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    _, index = max(
        input,
        axis,
        return_indices=True,
        return_indices_tie_break_left=tie_break_left,
        keep_dims=keep_dims,
    )
    return index


@library(member=True)
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    _, index = min(
        input,
        axis,
        return_indices=True,
        return_indices_tie_break_left=tie_break_left,
        keep_dims=keep_dims,
    )
    return index


def _scan_dtype(in_dtype):
    # Triton's cumsum/cumprod scan bf16 in fp32: each step's result feeds the next one
    return _types.float32 if in_dtype == _types.bfloat16 else in_dtype


@library(member=True)
def cumsum(input, axis=0, reverse=False, dtype: constexpr = None):
    input = input.to(_sum_dtype(_scan_dtype(input.dtype), dtype))
    return tl.associative_scan(input, axis, _sum_combine, reverse)


@library(member=True)
def cumprod(input, axis=0, reverse=False):
    input = input.to(_scan_dtype(input.dtype))
    return tl.associative_scan(input, axis, _prod_combine, reverse)


@library
def cdiv(x, div):
    return (x + div - 1) // div


@library(member=True)
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


@library(member=True)
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    if dim is None:
        dim = 0
    z = x - max(x, dim, keep_dims=True)
    num = tl.exp(z)
    den = sum(num, dim, keep_dims=True)
    return tl.fdiv(num, den, ieee_rounding)


@library
def zeros_like(input):
    return tl.zeros(input.shape, input.dtype)


@library
def full_like(input, value, dtype: constexpr = None):
    if dtype is None:
        dtype = input.dtype
    return tl.full(input.shape, value, dtype)


@library
def swizzle2d(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


def _int_of(dtype):
    return {8: _types.int8, 16: _types.int16, 32: _types.int32, 64: _types.int64}[
        dtype.primitive_bitwidth
    ]


def _log2(n):
    return n.bit_length() - 1


@library
def _merge_step(x, stage: constexpr, step: constexpr, descending: constexpr):
    # one compare-exchange layer of a bitonic network on the last dimension of a 1-D/2-D tile:
    # partners differ in bit `step`; a pair sorts ascending when bit `stage` of its index is 0
    n = x.shape[-1]
    inner = 1 << step
    outer = n // (2 * inner)
    if len(x.shape) == 1:
        pairs = tl.permute(tl.reshape(x, (outer, 2, inner)), (0, 2, 1))
        block = tl.arange(0, outer)[:, None]
    else:
        pairs = tl.permute(tl.reshape(x, (x.shape[0], outer, 2, inner)), (0, 1, 3, 2))
        block = tl.arange(0, outer)[None, :, None]
    lo, hi = tl.split(pairs)
    if stage == _log2(n):
        up = not descending
    else:
        up = ((block >> (stage - step - 1)) & 1) == 0
    swap = lo > hi
    small = tl.where(swap, hi, lo)
    large = tl.where(swap, lo, hi)
    first = tl.where(up, small, large)
    second = tl.where(up, large, small)
    joined = tl.join(first, second)
    if len(x.shape) == 1:
        return tl.reshape(tl.permute(joined, (0, 2, 1)), x.shape)
    return tl.reshape(tl.permute(joined, (0, 1, 3, 2)), x.shape)


@library(member=True)
def sort(x, dim: constexpr = None, descending: constexpr = False):
    tl.static_assert(
        dim is None or dim == len(x.shape) - 1 or dim == -1, "sort supports only the last dimension"
    )
    tl.static_assert(len(x.shape) <= 2, "sort supports 1-D and 2-D tiles")
    stages = _log2(x.shape[-1])
    for stage in tl.static_range(1, stages + 1):
        for k in tl.static_range(stage):
            x = _merge_step(x, stage, stage - 1 - k, descending)
    return x


@library(member=True)
def topk(x, k: constexpr, dim: constexpr = None, descending: constexpr = True):
    # the k largest in decreasing order, or with descending=False the k smallest increasing
    tl.static_assert(
        dim is None or dim == len(x.shape) - 1 or dim == -1, "topk supports only the last dimension"
    )
    tl.static_assert(len(x.shape) <= 2, "topk supports 1-D and 2-D tiles")
    ordered = sort(x, descending=descending)
    n = x.shape[-1]
    # keep the first k: view as rows of k and take row 0 (exact: xor of one value and zeros)
    bits = ordered.to(_int_of(x.dtype), bitcast=True)
    if len(x.shape) == 1:
        rows = tl.reshape(bits, (n // k, k))
        first = tl.where(tl.arange(0, n // k)[:, None] == 0, rows, 0)
        return xor_sum(first, 0).to(x.dtype, bitcast=True)
    rows = tl.reshape(bits, (x.shape[0], n // k, k))
    first = tl.where(tl.arange(0, n // k)[None, :, None] == 0, rows, 0)
    return xor_sum(first, 1).to(x.dtype, bitcast=True)


@library(member=True)
def histogram(input, num_bins: constexpr, mask=None):
    # counts of the values 0 .. num_bins-1 (values outside the range are not counted)
    x = tl.ravel(input)
    hit = x[:, None] == tl.arange(0, num_bins)[None, :]
    if mask is not None:
        hit = hit & tl.ravel(mask)[:, None]
    return sum(hit.to(tl.int32), 0)


@library(member=True)
def gather(src, index, axis: constexpr):
    # out[i] = src[index[i]] along `axis` of a 1-D or 2-D tile (exact: one selected value)
    tl.static_assert(len(src.shape) == len(index.shape), "gather needs src and index of one rank")
    tl.static_assert(len(src.shape) <= 2, "gather supports 1-D and 2-D tiles")
    bits = src.to(_int_of(src.dtype), bitcast=True)
    if index.numel * src.shape[axis] > _ONE_HOT_LIMIT:
        return _gather_by_rows(bits, index, axis).to(src.dtype, bitcast=True)
    if len(src.shape) == 1:
        hit = index[:, None] == tl.arange(0, src.shape[0])[None, :]
        picked = tl.where(hit, bits[None, :], 0)
        return xor_sum(picked, 1).to(src.dtype, bitcast=True)
    if axis == 0:
        hit = index[:, :, None] == tl.arange(0, src.shape[0])[None, None, :]
        picked = tl.where(hit, tl.trans(bits)[None, :, :], 0)
        return xor_sum(picked, 2).to(src.dtype, bitcast=True)
    hit = index[:, :, None] == tl.arange(0, src.shape[1])[None, None, :]
    picked = tl.where(hit, bits[:, None, :], 0)
    return xor_sum(picked, 2).to(src.dtype, bitcast=True)


# the one-hot gather above builds index.numel * src.shape[axis] elements: past Triton's largest
# tile it goes through the source one position along `axis` at a time instead
_ONE_HOT_LIMIT = constexpr(1 << 20)


@library
def _gather_by_rows(bits, index, axis: constexpr):
    out = tl.zeros(index.shape, bits.dtype)
    positions = tl.arange(0, bits.shape[axis])
    for r in range(bits.shape[axis]):
        if len(bits.shape) == 1:
            row = xor_sum(tl.where(positions == r, bits, 0), 0)
        elif axis == 0:
            row = xor_sum(tl.where(positions[:, None] == r, bits, 0), 0)[None, :]
        else:
            row = xor_sum(tl.where(positions[None, :] == r, bits, 0), 1)[:, None]
        out = tl.where(index == r, row, out)
    return out


@library
def squeeze(x, dim: constexpr):
    # drop dimension ``dim``, which must have size 1
    tl.static_assert(x.shape[dim] == 1, "squeeze: the dimension must have size 1")
    return tl.reshape(x, x.shape[:dim] + x.shape[dim + 1 :])


@library
def unsqueeze(x, dim: constexpr):
    # insert a dimension of size 1 before dimension ``dim``
    return tl.reshape(x, x.shape[:dim] + (1,) + x.shape[dim:])  # noqa: RUF005 (kernel code: the frontend has no starred tuple displays)


@library
def expect_zero(x, mask):
    # Triton's hint that ``x`` has underflowed to zero where ``mask`` holds: ``x`` itself, and
    # in debug mode (where device_assert checks) an assertion of it
    tl.device_assert((x == 0) | ~mask, "expect_zero expected x == 0 where mask is true")
    return x


@library
def condition(cond, disable_licm: constexpr = False):
    # Triton's ``while tl.condition(c, disable_licm=...)``: the loop condition itself; the hint
    # only steers LLVM's loop-invariant code motion, which tilec leaves on
    return cond
