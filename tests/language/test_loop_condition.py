"""``while tl.condition(c, disable_licm=...)`` (Triton's loop-condition hint) loops on ``c``."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit, poisoned


@jit
def count_up(Y, n, DISABLE: tl.constexpr):
    i = 0
    total = 0
    while tl.condition(i < n, disable_licm=DISABLE):
        i += 1
        total += i
    tl.store(Y, total)


@pytest.mark.parametrize("disable", [False, True])
@pytest.mark.parametrize("n", [0, 5, 37])
def test_loops_on_the_condition(n, disable):
    y = poisoned(1, np.int32)
    count_up[(1,)](y, n, DISABLE=disable)
    assert y[0] == n * (n + 1) // 2
