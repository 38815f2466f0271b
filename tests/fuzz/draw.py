"""Where the generator's decisions come from: a seeded PRNG that records them, or a replay of an
edited record (shrinking), or Hypothesis (``HypothesisDraw`` in test_fuzz.py)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Draw(Protocol):
    def int(self, lo: int, hi: int) -> int: ...


class RandomDraw:
    """Draws from a seeded PRNG and records them (shrink.py replays edited records)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.record: list[int] = []

    def int(self, lo: int, hi: int) -> int:
        v = self.rng.randint(lo, hi)
        self.record.append(v - lo)
        return v


class ReplayDraw:
    """Replays recorded offsets from each range's low end; past the end everything is simplest."""

    def __init__(self, record: list[int]) -> None:
        self.record = record
        self.pos = 0
        self.used: list[int] = []

    def int(self, lo: int, hi: int) -> int:
        v = self.record[self.pos] if self.pos < len(self.record) else 0
        self.pos += 1
        v = min(v, hi - lo)
        self.used.append(v)
        return lo + v


def pick(d: Draw, seq: Sequence[T]) -> T:
    return seq[d.int(0, len(seq) - 1)]


def coin(d: Draw, percent: int) -> bool:
    """True with ``percent`` % probability; the simplest draw (0) says False."""
    return d.int(0, 99) >= 100 - percent
