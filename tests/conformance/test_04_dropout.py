"""Tutorial 04: low-memory dropout. The Philox stream is compared bit for bit with a plain-Python
reference (itself checked against Random123's known-answer vectors); the seeded dropout mask is
reproducible for a seed and is exactly the reference's."""

from __future__ import annotations

import numpy as np
import pytest

from . import kernels
from .buffers import assert_guard_untouched, guarded, poisoned, rng, uniform
from .philox import PHILOX_4X32, PHILOX_4X64, philox, triton_randint4x, triton_uniform

W32, W64 = 0xFFFFFFFF, 2**64 - 1

# (word, counter, key, expected): the known-answer vectors published with Random123.
KNOWN_ANSWERS = [
    (PHILOX_4X32, (0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    (PHILOX_4X32, (W32,) * 4, (W32, W32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        PHILOX_4X32,
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
    (
        PHILOX_4X64,
        (0, 0, 0, 0),
        (0, 0),
        (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B),
    ),
    (
        PHILOX_4X64,
        (W64,) * 4,
        (W64, W64),
        (0x87B092C3013FE90B, 0x438C3C67BE8D0224, 0x9CC7D7C69CD777B6, 0xA09CAEBF594F0BA0),
    ),
]


@pytest.mark.parametrize(("word", "counter", "key", "expected"), KNOWN_ANSWERS)
def test_reference_matches_known_answers(word, counter, key, expected):
    assert philox(word, counter, key) == expected


def test_seed_zero_offset_zero_is_the_first_known_answer():
    ints, uniform_out = poisoned((1, 4), np.uint32), poisoned(1, np.float32)
    kernels.philox(ints, uniform_out, 0)
    assert tuple(int(v) for v in ints[0]) == KNOWN_ANSWERS[0][3]


@pytest.mark.parametrize(
    "seed",
    [
        pytest.param(lambda g: int(g.integers(0, 2**31)), id="int32"),
        pytest.param(lambda g: int(g.integers(2**32, 2**62)), id="int64-high-word"),
        pytest.param(lambda g: -int(g.integers(1, 2**31)), id="negative"),
    ],
)
def test_philox_4x32_stream(seed):
    seed, n, first = seed(rng()), 300, int(rng().integers(0, 2**20))
    ints, uniform_out = poisoned((n, 4), np.uint32), poisoned(n, np.float32)
    kernels.philox(ints, uniform_out, seed, first_offset=first)
    ref = triton_randint4x(seed, range(first, first + n), wide=False)
    np.testing.assert_array_equal(ints, ref)
    np.testing.assert_array_equal(uniform_out, triton_uniform(ref[:, 0]))
    assert uniform_out.min() >= 0.0 and uniform_out.max() < 1.0


def test_philox_rounds_are_honoured():
    seed, n = int(rng().integers(0, 2**31)), 70
    ints, uniform_out = poisoned((n, 4), np.uint32), poisoned(n, np.float32)
    kernels.philox(ints, uniform_out, seed, n_rounds=7, block_size=32)
    np.testing.assert_array_equal(ints, triton_randint4x(seed, range(n), wide=False, rounds=7))


def test_philox_past_int32_offsets_counts_the_high_word():
    seed, n = int(rng().integers(0, 2**40)), 50
    first = 2**31 + int(rng().integers(0, 2**33))
    ints, uniform_out = poisoned((n, 4), np.uint64), poisoned(n, np.float32)
    kernels.philox(ints, uniform_out, seed, first_offset=first, block_size=32)
    ref = triton_randint4x(seed, range(first, first + n), wide=True)
    np.testing.assert_array_equal(ints, ref)
    np.testing.assert_array_equal(uniform_out, triton_uniform(ref[:, 0]))


@pytest.mark.parametrize("n", [7, 1000])
def test_dropout_with_stored_mask(n):
    p = 0.3
    x = uniform(n, np.float32)
    keep = rng().random(n) > p
    out, whole = guarded(n, np.float32)
    kernels.dropout(x, keep, out, p)
    expected = np.where(keep, x.astype(np.float64) / (1 - np.float64(np.float32(p))), 0.0)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=0)
    assert_guard_untouched(out, whole)


@pytest.mark.parametrize("n", [5, 777])
def test_seeded_dropout_mask_is_the_philox_mask(n):
    p, seed = 0.4, int(rng().integers(0, 2**31))
    x = uniform(n, np.float32)
    out, whole = guarded(n, np.float32)
    kernels.seeded_dropout(x, out, p, seed)
    keep = triton_uniform(triton_randint4x(seed, range(n), wide=False)[:, 0]) > np.float32(p)
    np.testing.assert_array_equal(out != 0, keep)
    expected = np.where(keep, x.astype(np.float64) / (1 - np.float64(np.float32(p))), 0.0)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=0)
    assert_guard_untouched(out, whole)


def test_seeded_dropout_is_reproducible():
    n, p = 2000, 0.5
    seed = int(rng().integers(0, 2**31))
    x = uniform(n, np.float32, 1, 2)  # never zero, so a zero output means "dropped"
    first, again, other = (poisoned(n, np.float32) for _ in range(3))
    kernels.seeded_dropout(x, first, p, seed)
    kernels.seeded_dropout(x, again, p, seed)
    kernels.seeded_dropout(x, other, p, seed + 1)
    np.testing.assert_array_equal(first, again)
    assert (first != other).any()
    assert 0.4 < (first != 0).mean() < 0.6
