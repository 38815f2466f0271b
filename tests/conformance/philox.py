"""A plain-Python Philox-4x32 / 4x64 reference with Triton's seed and counter layout.

tl.randint4x runs Philox 4x32 on the counter (offset low word, offset high word, 0, 0) (the high
word is 0 for 32-bit offsets) with the key (seed low word, seed high word), as Triton does since
3.4; tl.philox on 64-bit counters runs 4x64 with the key (seed, 0). Uniform floats fold negative
words (-x - 1) and scale by 1/2^31 (1/2^63) in fp32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PhiloxWord:
    bits: int
    round_a: int
    round_b: int
    key_a: int
    key_b: int
    scale: float  # largest float with (2^(bits-1) - 1) * scale < 1 after fp32 rounding

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1


PHILOX_4X32 = PhiloxWord(32, 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 4.6566127342e-10)
PHILOX_4X64 = PhiloxWord(
    64,
    0xD2E7470EE14C6C93,
    0xCA5A826395121157,
    0x9E3779B97F4A7C15,
    0xBB67AE8584CAA73B,
    1.0842020432385337e-19,
)


def philox(word: PhiloxWord, counter, key, rounds: int = 10) -> tuple[int, int, int, int]:
    """Philox on one counter: each round multiplies c0 and c2 into 2-word products."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(rounds):
        prod0, prod2 = word.round_a * c0, word.round_b * c2
        c0, c1, c2, c3 = (
            (prod2 >> word.bits) ^ c1 ^ k0,
            prod2 & word.mask,
            (prod0 >> word.bits) ^ c3 ^ k1,
            prod0 & word.mask,
        )
        k0 = (k0 + word.key_a) & word.mask
        k1 = (k1 + word.key_b) & word.mask
    return c0, c1, c2, c3


def triton_randint4x(seed: int, offsets, wide: bool, rounds: int = 10) -> np.ndarray:
    """(n, 4) uint32 words for integer offsets, as tl.randint4x(seed, offsets) gives them;
    ``wide``: the offsets are int64, so their high word is the counter's second word."""
    seed64 = seed & (2**64 - 1)  # the seed is converted to uint64 (sign-extended first)
    key = (seed64 & 0xFFFFFFFF, seed64 >> 32)
    m = PHILOX_4X32.mask
    rows = [
        philox(PHILOX_4X32, (int(o) & m, (int(o) >> 32) & m if wide else 0, 0, 0), key, rounds)
        for o in offsets
    ]
    return np.array(rows, dtype=np.uint32).reshape(-1, 4)


def triton_uniform(words: np.ndarray) -> np.ndarray:
    """tl.rand's float32 from the first word of each offset."""
    signed = words.view(np.int64 if words.dtype == np.uint64 else np.int32).astype(np.int64)
    folded = np.where(signed < 0, -(signed + 1), signed)
    scale = PHILOX_4X64.scale if words.dtype == np.uint64 else PHILOX_4X32.scale
    return folded.astype(np.float32) * np.float32(scale)
