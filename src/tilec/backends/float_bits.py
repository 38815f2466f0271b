"""Rounding a number to a binary floating-point format's bits: the one Python definition of what
the launcher's C core does (``tl_round_float`` in platform/launcher/pack.c), used for scalar
arguments on every launch path and for 16-bit float constants in the generated code."""

from __future__ import annotations

import struct

# exponent and mantissa bits of the formats arguments and constants are rounded to
FORMATS: dict[str, tuple[int, int]] = {"fp16": (5, 10), "bf16": (8, 7), "fp32": (8, 23)}


def round_float_bits(value: float, ebits: int, mbits: int) -> int:
    """``value`` rounded to nearest-even, once, in a binary format with ``ebits`` exponent and
    ``mbits`` mantissa bits (overflow gives infinity, NaN a quiet NaN of the same sign)."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    sign = (bits >> 63) << (ebits + mbits)
    exp, man = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    inf = ((1 << ebits) - 1) << mbits
    if exp == 0x7FF:
        return sign | inf | ((1 << (mbits - 1)) if man else 0)
    if exp == 0:
        return sign
    e = exp - 1023 + (1 << (ebits - 1)) - 1
    shift = 52 - mbits + (0 if e >= 1 else 1 - e)
    if shift > 60:
        return sign
    full = (1 << 52) | man
    q, rem, half = full >> shift, full & ((1 << shift) - 1), 1 << (shift - 1)
    if rem > half or (rem == half and q & 1):
        q += 1
    magnitude = ((e - 1) << mbits) + q if e >= 1 else q
    return sign | min(magnitude, inf)


def f32_to_bf16_bits(value: float) -> int:
    """``value`` as fp32 first, then rounded to bfloat16: a constant, which Triton builds as an
    fp32 value of the bf16 type."""
    return round_float_bits(struct.unpack("<f", struct.pack("<f", value))[0], 8, 7)
