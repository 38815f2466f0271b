"""fp8 values as bit patterns: conversions from the fp8 formats, written as integer ops.

Backends hold fp8 elements as 8-bit integers and never compute with them, so a cast from an fp8
type is decoded here into fp32 (exactly: every fp8 value is an fp32) with shifts, masks and
selects, and cast on from there. ``x.to(tl.float8e5, bitcast=True).to(tl.float16)`` thus runs
on every backend; the fp8-typed bitcast in between folds away (see :func:`bits_of`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..errors import UnsupportedFeature
from ..ir import types as T
from ..ir.builder import Builder
from ..ir.core import Value
from ..ir.ops import BinaryKind as BK
from ..ir.ops import BitcastOp, CompareKind, ModuleOp, Rounding
from ..ir.types import ScalarType, element_of, with_element
from .values import Tensor


class Specials(enum.Enum):
    """Where a format keeps its infinities and NaNs."""

    IEEE = "ieee"  # all-ones exponent: zero mantissa is inf, others NaN (e5m2)
    FN = "fn"  # finite: only all-ones exponent and mantissa is NaN (e4m3fn)
    FNUZ = "fnuz"  # finite, unsigned zero: 0x80 is the only NaN (e4m3fnuz, e5m2fnuz)


@dataclass(frozen=True)
class MiniFloat:
    """A sign bit, ``exponent`` exponent bits with ``bias``, ``mantissa`` mantissa bits."""

    exponent: int
    mantissa: int
    bias: int
    specials: Specials


FORMATS: dict[ScalarType, MiniFloat] = {
    T.float8e4nv: MiniFloat(4, 3, 7, Specials.FN),
    T.float8e4b15: MiniFloat(4, 3, 15, Specials.FN),
    T.float8e5: MiniFloat(5, 2, 15, Specials.IEEE),
    T.float8e4b8: MiniFloat(4, 3, 8, Specials.FNUZ),
    T.float8e5b16: MiniFloat(5, 2, 16, Specials.FNUZ),
}


class _Ops:
    """Elementwise ops on same-shaped values with Python-number constants splatted in."""

    def __init__(self, b: Builder, shape: tuple[int, ...]) -> None:
        self.b, self.shape = b, shape

    def const(self, value: int | float, dtype: ScalarType) -> Value:
        c = self.b.constant(value, dtype)
        return self.b.splat(c, self.shape) if self.shape else c

    def bin(self, kind: BK, x: Value, y: Value | int) -> Value:
        if isinstance(y, int):
            y = self.const(y, T.uint32)
        return self.b.binary(kind, x, y)

    def eq(self, x: Value, y: int) -> Value:
        return self.b.compare(CompareKind.EQ, x, self.const(y, T.uint32))

    def f32(self, bits: Value) -> Value:
        return self.b.bitcast(bits, with_element(bits.type, T.float32))


def bits_of(b: Builder, x: Tensor) -> Tensor:
    """The uint8 bit pattern of fp8 ``x``: the bitcast that made ``x`` is undone, not stacked."""
    inner = x.value.defining_op
    if isinstance(inner, BitcastOp) and element_of(inner.operands[0].type) == T.uint8:
        return Tensor(inner.operands[0])
    return Tensor(b.bitcast(x.value, with_element(x.type, T.uint8)))


def decode(b: Builder, bits: Tensor, fmt: MiniFloat) -> Tensor:
    """The fp32 value of each pattern in ``bits`` (an unsigned integer tile)."""
    ops = _Ops(b, bits.shape)
    u = b.cast(bits.value, with_element(bits.type, T.uint32))
    sign = ops.bin(BK.SHL, ops.bin(BK.SHR, u, fmt.exponent + fmt.mantissa), 31)
    exp = ops.bin(BK.AND, ops.bin(BK.SHR, u, fmt.mantissa), (1 << fmt.exponent) - 1)
    man = ops.bin(BK.AND, u, (1 << fmt.mantissa) - 1)
    # normal: rebias the exponent, left-align the mantissa
    normal = ops.bin(BK.ADD, exp, 127 - fmt.bias)
    normal = ops.bin(BK.OR, ops.bin(BK.SHL, normal, 23), ops.bin(BK.SHL, man, 23 - fmt.mantissa))
    # subnormal: mantissa * 2**(1 - bias - mantissa), an exact product of normal fp32 numbers
    scale = 2.0 ** (1 - fmt.bias - fmt.mantissa)
    tiny = b.cast(man, with_element(man.type, T.float32))
    tiny = b.binary(BK.MUL, tiny, ops.const(scale, T.float32))
    tiny_bits = b.bitcast(tiny, with_element(tiny.type, T.uint32))
    magnitude = b.select(ops.eq(exp, 0), tiny_bits, normal)
    value = ops.f32(ops.bin(BK.OR, magnitude, sign))
    return Tensor(_specials(ops, value, u, exp, man, fmt))


def _specials(ops: _Ops, value: Value, u: Value, exp: Value, man: Value, fmt: MiniFloat) -> Value:
    b, top = ops.b, (1 << fmt.exponent) - 1
    nan = ops.const(float("nan"), T.float32)
    if fmt.specials is Specials.FNUZ:
        return b.select(ops.eq(u, 1 << (fmt.exponent + fmt.mantissa)), nan, value)
    if fmt.specials is Specials.FN:
        all_ones = (1 << (fmt.exponent + fmt.mantissa)) - 1
        return b.select(ops.eq(ops.bin(BK.AND, u, all_ones), all_ones), nan, value)
    sign = ops.bin(BK.AND, u, 1 << (fmt.exponent + fmt.mantissa))
    pos, neg = ops.const(float("inf"), T.float32), ops.const(-float("inf"), T.float32)
    inf = b.select(ops.eq(sign, 0), pos, neg)
    special = b.select(ops.eq(man, 0), inf, nan)
    return b.select(ops.eq(exp, top), special, value)


def _max_finite(fmt: MiniFloat) -> int:
    """The magnitude bits of the largest finite value."""
    top = (1 << fmt.exponent) - 1
    if fmt.specials is Specials.IEEE:
        return ((top - 1) << fmt.mantissa) | ((1 << fmt.mantissa) - 1)
    if fmt.specials is Specials.FN:
        return (top << fmt.mantissa) | ((1 << fmt.mantissa) - 2)
    return (top << fmt.mantissa) | ((1 << fmt.mantissa) - 1)


def encode(b: Builder, x: Tensor, fmt: MiniFloat, rounding: Rounding) -> Tensor:
    """The uint8 patterns of fp32/fp64 ``x`` in ``fmt``, rounded to nearest even (or toward
    zero). Values beyond the range, infinities included, become the largest finite value of
    their sign in every format, e5m2 too (Triton's clamping, NVIDIA's ``satfinite``); NaN
    stays NaN. Integer arithmetic on the source's bits, so no step rounds twice."""
    src = x.dtype
    assert isinstance(src, ScalarType)
    word, e_src, m_src, bias_src = (
        (T.uint64, 11, 52, 1023) if src == T.float64 else (T.uint32, 8, 23, 127)
    )
    ops = _WordOps(b, x.shape, word)
    u = b.bitcast(x.value, with_element(x.type, word))
    sign = ops.bin(BK.SHR, u, word.bits - 1)
    mag = ops.bin(BK.AND, u, (1 << (word.bits - 1)) - 1)
    exp = ops.bin(BK.SHR, mag, m_src)  # biased source exponent
    drop = m_src - fmt.mantissa
    # normal in fmt: rebias in place, then drop the low mantissa bits with rounding
    min_normal = (bias_src - fmt.bias + 1) << m_src  # the source bits of fmt's smallest normal
    rebased = ops.bin(BK.SUB, mag, (bias_src - fmt.bias) << m_src)
    normal = ops.shift_round(rebased, ops.const(drop), rounding)
    # subnormal in fmt: the significand with its leading one, shifted further right
    full = ops.bin(BK.OR, ops.bin(BK.AND, mag, (1 << m_src) - 1), 1 << m_src)
    extra = ops.bin(BK.SUB, ops.const(bias_src - fmt.bias + 1 + drop), exp)  # >= drop + 1
    extra = b.binary(BK.MIN, extra, ops.const(m_src + 2))  # beyond: rounds to zero
    tiny = ops.shift_round(full, extra, rounding)
    is_normal = b.compare(CompareKind.GE, mag, ops.const(min_normal))
    bits = b.select(is_normal, normal, tiny)
    bits = b.select(ops.eq(exp, 0), ops.const(0), bits)  # source zeros and subnormals
    return Tensor(_finish(ops, bits, sign, mag, fmt, e_src, m_src))


def _finish(
    ops: _WordOps, bits: Value, sign: Value, mag: Value, fmt: MiniFloat, e_src: int, m_src: int
) -> Value:
    """Clamp to the format's range, map infinities and NaNs, put the sign back; as uint8."""
    b = ops.b
    inf_bits = ((1 << e_src) - 1) << m_src
    is_nan = b.compare(CompareKind.GT, mag, ops.const(inf_bits))
    is_inf = ops.eq(mag, inf_bits)
    biggest = ops.const(_max_finite(fmt))
    over = b.compare(CompareKind.GT, bits, biggest)
    bits = b.select(over, biggest, bits)
    bits = b.select(is_inf, biggest, bits)
    signed = ops.bin(BK.OR, bits, ops.bin(BK.SHL, sign, fmt.exponent + fmt.mantissa))
    if fmt.specials is Specials.FNUZ:  # no negative zero: 0x80 is the NaN
        signed = b.select(ops.eq(bits, 0), bits, signed)
        nan = 1 << (fmt.exponent + fmt.mantissa)
    else:
        nan = (1 << (fmt.exponent + fmt.mantissa)) - 1
    signed = b.select(is_nan, ops.const(nan), signed)
    out = b.cast(signed, with_element(signed.type, T.uint8))
    return out


class _WordOps(_Ops):
    """Integer ops in one unsigned word type (uint32 or uint64)."""

    def __init__(self, b: Builder, shape: tuple[int, ...], word: ScalarType) -> None:
        super().__init__(b, shape)
        self.word = word

    def const(self, value: int | float, dtype: ScalarType | None = None) -> Value:
        return super().const(value, dtype or self.word)

    def bin(self, kind: BK, x: Value, y: Value | int) -> Value:
        return self.b.binary(kind, x, self.const(y) if isinstance(y, int) else y)

    def eq(self, x: Value, y: int) -> Value:
        return self.b.compare(CompareKind.EQ, x, self.const(y))

    def shift_round(self, v: Value, s: Value, rounding: Rounding) -> Value:
        """``v >> s`` (s >= 1) rounded to nearest even, or truncated for rtz."""
        if rounding is Rounding.RTZ:
            return self.bin(BK.SHR, v, s)
        one = self.const(1)
        half_less = self.bin(BK.SUB, self.bin(BK.SHL, one, self.bin(BK.SUB, s, 1)), 1)
        odd = self.bin(BK.AND, self.bin(BK.SHR, v, s), 1)
        return self.bin(BK.SHR, self.bin(BK.ADD, self.bin(BK.ADD, v, half_less), odd), s)


def reject_compute(module: ModuleOp) -> None:
    """Backends hold fp8 only as bits: an op other than a bitcast that takes or makes fp8
    elements (arithmetic, select, reshape ... on fp8 values) is refused, naming the op."""
    for op in module.walk():
        if isinstance(op, BitcastOp):
            continue
        for v in (*op.operands, *op.results):
            element = element_of(v.type)
            if isinstance(element, ScalarType) and element in T.UNSUPPORTED_TYPES:
                raise UnsupportedFeature(
                    f"'{op.name}' on fp8 dtypes ({element!r}) is not supported by tilec: fp8 values "
                    "can be loaded, stored and converted; convert to tl.float16 or tl.float32 "
                    "to compute",
                    op.loc,
                )
