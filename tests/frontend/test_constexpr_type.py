"""``x.type`` of a compile-time value is ``tl.constexpr_type(x)``, as in Triton: for parameters,
names annotated ``tl.constexpr`` and elements of tuples; a number assigned to a name without that
annotation decays to a tensor, whose type is its dtype."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.build import build
from support.run import jit, poisoned
from tilec.constexpr import constexpr
from tilec.errors import CompileError


def typed_names(N: tl.constexpr):
    y: tl.constexpr
    x, y = 0, 0
    tl.static_assert(x.dtype == tl.int32)
    tl.static_assert(y.type == tl.constexpr_type(0))
    tl.static_assert(N.type == tl.constexpr_type(8))
    z: tl.constexpr = N
    tl.static_assert(z.type == tl.constexpr_type(8))
    w = N
    tl.static_assert(w.type == tl.int32)
    f = 2.5
    tl.static_assert(f.type == tl.float32)


def test_types_as_triton_gives_them():
    build(typed_names, 8)


@jit
def tuple_leaf_types(Y, T):
    # an integer argument equal to 1 is specialized as a compile-time value, as in Triton
    tl.static_assert(isinstance(T[1].type, tl.constexpr_type))
    tl.static_assert(T[0].type == tl.int32)
    tl.store(Y, T[0] + T[1])


def test_tuple_leaves():
    y = poisoned(1, np.int32)
    tuple_leaf_types[(1,)](y, (3, 1))
    assert y[0] == 4


def annotated_then_plain(N: tl.constexpr):
    n: tl.constexpr = N
    n = N + 1  # still annotated: stays a compile-time value
    tl.static_assert(n.type == tl.constexpr_type(N + 1))


def test_annotation_outlives_reassignment():
    build(annotated_then_plain, 3)


def wrong_type(N: tl.constexpr):
    m = N
    tl.static_assert(m.type == tl.constexpr_type(N))


def test_decayed_name_is_not_constexpr():
    with pytest.raises(CompileError, match="static_assert"):
        build(wrong_type, 3)


def test_constexpr_type_equality():
    assert tl.constexpr_type(3) == tl.constexpr(3).type
    assert tl.constexpr_type(3) != tl.constexpr_type(4)
    assert tl.constexpr_type(constexpr(2)) == tl.constexpr_type(2)
    assert repr(tl.constexpr_type(2)) == "constexpr_type[2]"
    assert tl.core.constexpr_type is tl.constexpr_type


@jit
def store_if_constexpr(Y, N: tl.constexpr):
    k: tl.constexpr = N * 2
    if isinstance(k.type, tl.constexpr_type):
        tl.store(Y, k)
    else:
        tl.store(Y, -1)


def test_branch_on_constexpr_type_runs():
    y = poisoned(1, np.int32)
    store_if_constexpr[(1,)](y, 21)
    assert y[0] == 42


@jit
def _sign(x):
    if x < 0:
        return 1
    return 0


def call_results(N: tl.constexpr):
    m = -1
    # Triton computes this call from a decayed (run-time) m: its result is a tensor
    tl.static_assert(_sign(m).type == tl.int32)
    t: tl.constexpr = (N, 2)
    tl.static_assert(t[1].type == tl.constexpr_type(2))


def test_expressions_are_not_compile_time_types():
    build(call_results, 4)
