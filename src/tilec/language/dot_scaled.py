"""``tl.dot_scaled``: the dot of microscaled (MX) operands, emulated exactly in tl.

Each operand is decoded to fp32 — e2m1 nibbles (two per uint8, the first in the low bits),
e4m3/e5m2 bytes, bf16/fp16 — and multiplied by its scale broadcast along K: an e8m0 byte ``s``
is ``2**(s - 127)`` (as in Triton, 0 gives 0 and 255 gives NaN, unless ``fast_math``), a
float8e4nv scale (nvfp4) is its value. The products are exact in fp32, so ``tl.dot`` with tf32
inputs (whose 10 mantissa bits hold every decoded value) gives the exact-input result on every
backend. Shapes and formats are checked as Triton checks them, with Triton's messages.
"""

# mypy: ignore-errors
# (tl code: run by the frontend, where tensors have methods mypy cannot see)
from __future__ import annotations

from ..constexpr import constexpr
from ..errors import TileTypeError
from ..ir import types as _types
from . import core as tl
from .library import library

FORMATS = ("e2m1", "e4m3", "e5m2", "bf16", "fp16")
# the dtype each format may arrive as besides its integer storage type
_FLOAT_OF = {
    "e4m3": _types.float8e4nv, "e5m2": _types.float8e5, "bf16": _types.bfloat16,
    "fp16": _types.float16,
}  # fmt: skip
_STORAGE_OF = {"e2m1": _types.uint8, "e4m3": _types.uint8, "e5m2": _types.uint8,
               "bf16": _types.uint16, "fp16": _types.uint16}  # fmt: skip


def _check_operand(dtype, fmt):
    if fmt not in FORMATS:
        raise TileTypeError(f"Invalid float format: {fmt}.")
    if dtype != _STORAGE_OF[fmt] and dtype != _FLOAT_OF.get(fmt):
        if fmt == "e2m1":
            raise TileTypeError(f"e2m1 format must be packed as uint8. Got {dtype}")
        raise TileTypeError(f"Unexpected dtype for {fmt}. Got {dtype}")


def _scale_factor(shape, scale_shape, k_axis, fmt, k_pack):
    """K elements per scale, deduced from the shapes (0: no scale to deduce it from)."""
    if scale_shape is None:
        return 0
    numel = 1
    for d in scale_shape:
        numel *= d
    if numel == 1:
        return 0
    k = shape[k_axis] * (2 if fmt == "e2m1" and k_pack else 1)
    factor = k // scale_shape[-1]
    if factor not in (16, 32):
        raise TileTypeError(f"scale factor must be 16 or 32. Got {factor}")
    return factor


def _plan(lhs, lhs_scale, lhs_format, lhs_k_pack, rhs, rhs_scale, rhs_format, rhs_k_pack, acc,
          out_dtype):  # fmt: skip
    """Check the operands as Triton does; returns the scale factor (K elements per scale)."""
    lhs_shape, lhs_dtype = lhs
    rhs_shape, rhs_dtype = rhs
    if out_dtype != _types.float32:
        raise TileTypeError("Only float32 is supported for out_dtype at the moment")
    rank = len(lhs_shape)
    if not (rank == len(rhs_shape) and rank in (2, 3)):
        raise TileTypeError(
            f"Both inputs must be either 2D or 3D; (lhs: {list(lhs_shape)} vs rhs: "
            f"{list(rhs_shape)})"
        )
    _check_operand(lhs_dtype, lhs_format)
    _check_operand(rhs_dtype, rhs_format)
    for side, fmt, k_pack in (("lhs", lhs_format, lhs_k_pack), ("rhs", rhs_format, rhs_k_pack)):
        if not k_pack and fmt != "e2m1":
            raise TileTypeError(
                f"only mxfp4 inputs can be packed along a dimension different than K ({side})"
            )
    unpack_a, unpack_b = (2 if f == "e2m1" else 1 for f in (lhs_format, rhs_format))
    m, k = lhs_shape[-2:]
    k_rhs, n = rhs_shape[-2:]
    m, k = (m, k * unpack_a) if lhs_k_pack else (m * unpack_a, k)
    k_rhs, n = (k_rhs * unpack_b, n) if rhs_k_pack else (k_rhs, n * unpack_b)
    if k != k_rhs:
        raise TileTypeError(
            "Reduction dimension should pack the same number of elements; "
            f"(lhs: {list(lhs_shape)} vs rhs: {list(rhs_shape)})"
        )
    if rank == 3 and lhs_shape[0] != rhs_shape[0]:
        raise TileTypeError(f"batch dimensions differ: {list(lhs_shape)} and {list(rhs_shape)}")
    factor_a = _scale_factor(lhs_shape, lhs_scale, -1, lhs_format, lhs_k_pack)
    factor_b = _scale_factor(rhs_shape, rhs_scale, -2, rhs_format, rhs_k_pack)
    if factor_a and factor_b and factor_a != factor_b:
        raise TileTypeError(
            f"Operands must have the same scale factor; (lhs: {factor_a} vs rhs: {factor_b})"
        )
    factor = factor_a or factor_b or 32
    out = [*lhs_shape[:-2], m, n]
    for side, scale, rows in (("lhs", lhs_scale, m), ("rhs", rhs_scale, n)):
        want = [*lhs_shape[:-2], rows, k // factor]
        if scale is not None and list(scale[-2:]) != want[-2:]:
            raise TileTypeError(
                f"{side}_scale must be a tensor of shape [..., {rows}, {k // factor}]. "
                f"Got {list(scale)}"
            )
    if acc is not None:
        acc_shape, acc_dtype = acc
        if list(acc_shape) != out:
            raise TileTypeError(f"expected accumulator shape {out}, got {list(acc_shape)}")
        if acc_dtype != out_dtype:
            raise TileTypeError(
                f"expected accumulator dtype {out_dtype}, got {acc_dtype}; pass "
                f"out_dtype={acc_dtype} to use this accumulator dtype"
            )
    return factor


@library
def _e2m1(nibble):
    # sign, 2 exponent bits (bias 1), 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6
    n = nibble.to(tl.uint32)
    exp = (n >> 1) & 3
    bits = ((exp + 126) << 23) | ((n & 1) << 22)
    bits = tl.where(exp == 0, tl.where((n & 1) == 1, 0x3F000000, 0), bits)
    return (bits | ((n & 8) << 28)).to(tl.float32, bitcast=True)


@library
def _interleave_along(a, b, axis: constexpr):
    # a[..., i, ...] and b[..., i, ...] to positions 2i and 2i + 1 of ``axis``
    rank: constexpr = len(a.shape)
    if axis == rank - 1:
        return tl.interleave(a, b)
    tl.static_assert(axis == rank - 2, "e2m1 is packed along one of the last two axes")
    if rank == 2:
        return tl.trans(tl.interleave(tl.trans(a), tl.trans(b)))
    return tl.permute(tl.interleave(tl.permute(a, 0, 2, 1), tl.permute(b, 0, 2, 1)), 0, 2, 1)


@library
def _values(x, fmt: constexpr, pack_axis: constexpr):
    # the fp32 value of each element of an operand in format ``fmt``
    if fmt == "e2m1":
        return _interleave_along(_e2m1(x & 0xF), _e2m1(x >> 4), pack_axis)
    if fmt == "e4m3":
        return x.to(tl.float8e4nv, bitcast=True).to(tl.float32)
    if fmt == "e5m2":
        return x.to(tl.float8e5, bitcast=True).to(tl.float32)
    if fmt == "bf16":
        return x.to(tl.bfloat16, bitcast=True).to(tl.float32)
    return x.to(tl.float16, bitcast=True).to(tl.float32)


@library
def _scales(scale, factor: constexpr, fast_math: constexpr):
    # [..., rows, K // factor] scales as fp32, repeated to [..., rows, K]. An integer scale is
    # an e8m0 byte whatever its signedness (Triton's scale operand is a signless i8): int8 -128
    # is the byte 0x80, 2.0
    if scale.dtype.is_int():
        tl.static_assert(
            scale.dtype.primitive_bitwidth == 8,
            "dot_scaled's integer scales must be e8m0 bytes (uint8 or int8)",
        )
        bits = scale.to(tl.uint8, bitcast=True).to(tl.uint32)
        value = (bits << 23).to(tl.float32, bitcast=True)
        if not fast_math:
            value = tl.where(bits == 0xFF, float("nan"), value)
    else:
        value = scale.to(tl.float32)
    if len(value.shape) == 2:
        rows: constexpr = value.shape[0]
        cols: constexpr = value.shape[1]
        wide = tl.broadcast_to(tl.expand_dims(value, 2), (rows, cols, factor))
        return tl.reshape(wide, (rows, cols * factor))
    batch: constexpr = value.shape[0]
    rows3: constexpr = value.shape[1]
    cols3: constexpr = value.shape[2]
    wide3 = tl.broadcast_to(tl.expand_dims(value, 3), (batch, rows3, cols3, factor))
    return tl.reshape(wide3, (batch, rows3, cols3 * factor))


@library
def _swap_last(x):
    if len(x.shape) == 2:
        return tl.trans(x)
    return tl.permute(x, 0, 2, 1)


@library
def dot_scaled(
    lhs,
    lhs_scale,
    lhs_format: constexpr,
    rhs,
    rhs_scale,
    rhs_format: constexpr,
    acc=None,
    fast_math: constexpr = False,
    lhs_k_pack: constexpr = True,
    rhs_k_pack: constexpr = True,
    out_dtype: constexpr = tl.float32,
):
    lhs_scale_shape = None
    if lhs_scale is not None:
        lhs_scale_shape = lhs_scale.shape
    rhs_scale_shape = None
    if rhs_scale is not None:
        rhs_scale_shape = rhs_scale.shape
    acc_type = None
    if acc is not None:
        acc_type = (acc.shape, acc.dtype)
    factor: constexpr = _plan(
        (lhs.shape, lhs.dtype), lhs_scale_shape, lhs_format, lhs_k_pack, (rhs.shape, rhs.dtype),
        rhs_scale_shape, rhs_format, rhs_k_pack, acc_type, out_dtype,
    )  # fmt: skip
    rank: constexpr = len(lhs.shape)
    a = _values(lhs, lhs_format, rank - 1 if lhs_k_pack else rank - 2)
    b = _values(rhs, rhs_format, rank - 2 if rhs_k_pack else rank - 1)
    if lhs_scale is not None:
        a = a * _scales(lhs_scale, factor, fast_math)
    if rhs_scale is not None:
        b = b * _swap_last(_scales(rhs_scale, factor, fast_math))
    return tl.dot(a, b, acc, input_precision="tf32")
