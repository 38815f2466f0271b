"""Philox random numbers: integers bit-identical to a NumPy Philox 4x32-10 reference."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned

_M = 0xFFFFFFFF


def philox_reference(seed: int, offsets: np.ndarray, rounds: int = 10) -> list[np.ndarray]:
    """Philox 4x32 with Triton's key split (seed low/high words) and counter (offset's low
    word, offset's high word, 0, 0)."""
    c0 = offsets.astype(np.uint64) & _M
    c1 = (offsets.astype(np.uint64) >> np.uint64(32)) & _M
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0 = np.uint64(seed & _M)
    k1 = np.uint64((seed >> 32) & _M)
    a, b = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(rounds):
        pa, pb = a * c0, b * c2
        c0, c1, c2, c3 = (
            ((pb >> np.uint64(32)) ^ c1 ^ k0) & _M,
            pb & _M,
            ((pa >> np.uint64(32)) ^ c3 ^ k1) & _M,
            pa & _M,
        )
        k0 = (k0 + np.uint64(0x9E3779B9)) & np.uint64(_M)
        k1 = (k1 + np.uint64(0xBB67AE85)) & np.uint64(_M)
    return [c.astype(np.uint32) for c in (c0, c1, c2, c3)]


@jit
def rng_kernel(out_int, out_4x, out_rand, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_int + offs, tl.randint(seed, offs), mask=mask)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out_4x + offs * 4, a, mask=mask)
    tl.store(out_4x + offs * 4 + 1, b, mask=mask)
    tl.store(out_4x + offs * 4 + 2, c, mask=mask)
    tl.store(out_4x + offs * 4 + 3, d, mask=mask)
    tl.store(out_rand + offs, tl.rand(seed, offs), mask=mask)


def test_philox_matches_reference():
    n = 300
    seed = int(np.random.default_rng().integers(0, 2**31))
    ints, four, uni = poisoned(n, np.uint32), poisoned(4 * n, np.uint32), poisoned(n, np.float32)
    rng_kernel[(3,)](ints, four, uni, seed, n, BLOCK=128)
    ref = philox_reference(seed, np.arange(n))
    np.testing.assert_array_equal(ints, ref[0])
    np.testing.assert_array_equal(four.reshape(n, 4), np.stack(ref, axis=1))
    signed = ref[0].view(np.int32).astype(np.int64)
    folded = np.where(signed < 0, -signed - 1, signed).astype(np.float32)
    np.testing.assert_array_equal(uni, folded * np.float32(4.6566127342e-10))
    assert uni.min() >= 0.0 and uni.max() < 1.0


@jit
def randn_kernel(out, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.randn(seed, offs))


def test_randn_is_standard_normal():
    out = poisoned(4096, np.float32)
    randn_kernel[(1,)](out, 1234, BLOCK=4096)
    assert abs(out.mean()) < 0.1 and abs(out.std() - 1) < 0.1


def philox64_reference(seed: int, offset: int, rounds: int = 10) -> list[int]:
    """Philox 4x64 on Python ints, keyed (seed, 0) with counter (offset, 0, 0, 0)."""
    m = (1 << 64) - 1
    c = [offset & m, 0, 0, 0]
    k0, k1 = seed & m, 0
    for _ in range(rounds):
        pa, pb = 0xD2E7470EE14C6C93 * c[0], 0xCA5A826395121157 * c[2]
        c = [(pb >> 64) ^ c[1] ^ k0, pb & m, (pa >> 64) ^ c[3] ^ k1, pa & m]
        k0 = (k0 + 0x9E3779B97F4A7C15) & m
        k1 = (k1 + 0xBB67AE8584CAA73B) & m
    return c


@jit
def rng64_kernel(out_ptr, seed, base, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.static_assert(a.dtype == tl.uint32)
    r = tl.arange(0, BLOCK)
    tl.store(out_ptr + r * 4, a)
    tl.store(out_ptr + r * 4 + 1, b)
    tl.store(out_ptr + r * 4 + 2, c)
    tl.store(out_ptr + r * 4 + 3, d)


def test_64bit_offsets_are_two_counter_words():
    # Triton (3.4 on): Philox 4x32 with the offset's high word as the second counter word
    seed = 987654321
    out = poisoned((32, 4), np.uint32)
    for base in (5, 2**40 + 5):  # the first as int32 offsets would give
        rng64_kernel[(1,)](out, seed, base, BLOCK=32)
        ref = philox_reference(seed, base + np.arange(32, dtype=np.uint64))
        np.testing.assert_array_equal(out, np.stack(ref, axis=1))


@jit
def philox64_kernel(out_ptr, seed, base, BLOCK: tl.constexpr):
    c0 = (base + tl.arange(0, BLOCK).to(tl.int64)).to(tl.uint64, bitcast=True)
    zero = c0 * 0
    a, b, c, d = tl.philox(seed, c0, zero, zero, zero)
    r = tl.arange(0, BLOCK)
    tl.store(out_ptr + r * 4, a.to(tl.int64, bitcast=True))
    tl.store(out_ptr + r * 4 + 1, b.to(tl.int64, bitcast=True))
    tl.store(out_ptr + r * 4 + 2, c.to(tl.int64, bitcast=True))
    tl.store(out_ptr + r * 4 + 3, d.to(tl.int64, bitcast=True))


def test_philox_on_64bit_counters():
    seed, base = 987654321, 2**40 + 5
    out = poisoned((16, 4), np.int64)
    philox64_kernel[(1,)](out, seed, base, BLOCK=16)
    want = [philox64_reference(seed, base + i) for i in range(16)]
    np.testing.assert_array_equal(out.view(np.uint64), np.array(want, dtype=np.uint64))


@jit
def rand_with_seed(X, seed):
    offs = tl.arange(0, 4)
    tl.store(X + offs, tl.rand(seed, offs))


@pytest.mark.parametrize("seed", [np.zeros(1, np.int32), 2.3])
def test_seed_must_be_an_integer(seed):
    # an array would be seeded by its address, a float by its truncation
    x = np.zeros(4, np.float32)
    with pytest.raises(tilec.CompileError, match=r"seed of tl\.random must be an integer"):
        rand_with_seed[(1,)](x, seed)
