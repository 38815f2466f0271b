"""Assignment expressions (``:=``) bind their name in the enclosing scope, as in Python; where
the name could not outlive its expression (a while loop's condition, a run-time conditional
expression's branch) the frontend refuses it (see test_check)."""

from __future__ import annotations

import numpy as np

import tilec.language as tl
from support.build import build
from support.run import jit, poisoned


@jit
def walrus_store(X, Y, N):
    if (k := tl.load(X)) > N:
        tl.store(Y, k * 2)
    else:
        tl.store(Y, k - 1)
    tl.store(Y + 1, (m := k + 3) + m)


def test_runtime_values_bind():
    x = np.array([5], np.int32)
    y = poisoned(2, np.int32)
    walrus_store[(1,)](x, y, 3)
    assert y.tolist() == [10, 16]
    walrus_store[(1,)](x, y, 9)
    assert y.tolist() == [4, 16]


def annotated_walrus():
    x: tl.constexpr
    if (x := 11) != 10:
        tl.static_assert(isinstance(x.type, tl.constexpr_type))
    else:
        tl.static_assert(False)


def plain_walrus():
    if (x := 11) != 10:
        tl.static_assert(x.type == tl.int32)


def test_annotation_is_respected():
    build(annotated_walrus)
    build(plain_walrus)
