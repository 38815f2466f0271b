"""Shrinks a failing case found by a seeded run: edits the recorded draws (truncate, zero,
halve) and keeps an edit while the kernel still fails the same way. The generator maps low
draws to simple choices, so the result is a small kernel with simple data."""

from __future__ import annotations

import time
from collections.abc import Callable

from .draw import ReplayDraw
from .gen import generate
from .program import Case
from .render import source


def replay(record: list[int]) -> tuple[Case, list[int]]:
    d = ReplayDraw(record)
    case = generate(d)
    return case, d.used


def shrink(
    record: list[int], fails: Callable[[Case], bool], budget: int = 60, seconds: float = 90.0
) -> Case:
    """The smallest case reached within ``budget`` launches of ``fails``."""
    best, best_rec = replay(record)
    seen = {_key(best)}
    tries = 0
    deadline = time.monotonic() + seconds

    def attempt(rec: list[int]) -> bool:
        nonlocal best, best_rec, tries
        case, used = replay(rec)
        key = _key(case)
        if key in seen or tries >= budget or time.monotonic() > deadline:
            return False
        seen.add(key)
        tries += 1
        if fails(case):
            best, best_rec = case, used
            return True
        return False

    changed = True
    while changed and tries < budget and time.monotonic() < deadline:
        changed = False
        size = len(best_rec) // 2
        while size >= 1:  # drop trailing draws: later choices become the simplest
            if attempt(best_rec[: len(best_rec) - size]):
                changed = True
            else:
                size //= 2
        for i in range(len(best_rec)):
            v = best_rec[i] if i < len(best_rec) else 0
            for smaller in (0, v // 2):
                if smaller < v and attempt([*best_rec[:i], smaller, *best_rec[i + 1 :]]):
                    changed = True
                    break
    return best


def _key(case: Case) -> tuple:
    return (source(case.kernel), case.bounds, case.data_seed, case.special)
