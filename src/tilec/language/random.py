"""Counter-based random numbers (Philox 4x32-10; ``tl.philox`` also runs 4x64 on 64-bit
counters), in tl.

The rounds, constants, seed split, offset split and float conversion follow Triton's
``tl.random`` so that the same (seed, offset) gives bit-identical integers and uniform floats.
A 64-bit offset is two 32-bit counter words, as in Triton since 3.4.
"""

# mypy: ignore-errors
# (tl code: run by the frontend, where tensors have methods mypy cannot see)
from __future__ import annotations

from ..constexpr import constexpr
from . import core as tl
from .library import library

N_ROUNDS_DEFAULT = 10
_KEY_A_32 = 0x9E3779B9
_KEY_B_32 = 0xBB67AE85
_ROUND_A_32 = 0xD2511F53
_ROUND_B_32 = 0xCD9E8D57
_KEY_A_64 = 0x9E3779B97F4A7C15
_KEY_B_64 = 0xBB67AE8584CAA73B
_ROUND_A_64 = 0xD2E7470EE14C6C93
_ROUND_B_64 = 0xCA5A826395121157


@library
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    if c0.dtype.primitive_bitwidth == 32:
        key_a, key_b, round_a, round_b = _KEY_A_32, _KEY_B_32, _ROUND_A_32, _ROUND_B_32
    else:
        key_a, key_b, round_a, round_b = _KEY_A_64, _KEY_B_64, _ROUND_A_64, _ROUND_B_64
    ra = tl.full((), round_a, c0.dtype)
    rb = tl.full((), round_b, c0.dtype)
    for _ in tl.static_range(n_rounds):
        old0, old2 = c0, c2
        c0 = tl.umulhi(rb, old2) ^ c1 ^ k0
        c2 = tl.umulhi(ra, old0) ^ c3 ^ k1
        c1 = rb * old2
        c3 = ra * old0
        k0 = k0 + tl.full((), key_a, c0.dtype)
        k1 = k1 + tl.full((), key_b, c0.dtype)
    return c0, c1, c2, c3


@library
def philox(seed, c0, c1, c2, c3, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    # as in Triton, the seed is an integer: a float or a pointer (an array passed as the
    # seed) would otherwise be converted into one silently
    if isinstance(seed, tl.tensor):
        tl.static_assert(seed.dtype.is_int(), "the seed of tl.random must be an integer")
        seed = seed.to(tl.uint64)
    else:
        tl.static_assert(isinstance(seed, int), "the seed of tl.random must be an integer")
        seed = tl.full((), seed, tl.uint64)
    if c0.dtype.primitive_bitwidth == 32:
        word = tl.uint32
        seed_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        seed_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(c0.dtype.primitive_bitwidth == 64, "philox needs 32- or 64-bit counters")
        word = tl.uint64
        seed_hi = tl.full((), 0, tl.uint64)
        seed_lo = seed
    c0 = c0.to(word, bitcast=True)
    c1 = c1.to(word, bitcast=True)
    c2 = c2.to(word, bitcast=True)
    c3 = c3.to(word, bitcast=True)
    return philox_impl(c0, c1, c2, c3, seed_lo, seed_hi, n_rounds)


@library
def randint4x(seed, offset, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    # as Triton (3.4 on): Philox 4x32 whatever the offset's width; a 64-bit offset's high
    # word is the second counter word, so results are uint32 and match for small offsets
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if offset.dtype.primitive_bitwidth > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
    else:
        offset_hi = zero
    return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)


@library
def randint(seed, offset, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    ret, _, _, _ = randint4x(seed, offset, n_rounds)
    return ret


@library
def uint_to_uniform_float(x):
    if x.dtype.primitive_bitwidth == 32:
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@library
def rand(seed, offset, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    source = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(source)


@library
def rand4x(seed, offsets, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    return (
        uint_to_uniform_float(i1),
        uint_to_uniform_float(i2),
        uint_to_uniform_float(i3),
        uint_to_uniform_float(i4),
    )


@library
def pair_uniform_to_normal(u1, u2):
    u1 = tl.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(th), r * tl.sin(th)


@library
def randn(seed, offset, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    n1, _ = pair_uniform_to_normal(u1, u2)
    return n1


@library
def randn4x(seed, offset, n_rounds: constexpr = N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4
