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
from ..ir.ops import BitcastOp, CompareKind
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
    """The fp32 value of each 8-bit (or narrower) pattern in ``bits`` (any integer type)."""
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


def format_of(dtype: ScalarType) -> MiniFloat:
    fmt = FORMATS.get(dtype)
    if fmt is None:
        raise UnsupportedFeature(f"conversions from {dtype!r} are not supported by tilec")
    return fmt
