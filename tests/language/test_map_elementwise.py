"""tl.map_elementwise: a scalar @jit function over every element (or every ``pack`` consecutive
elements) of broadcast tiles, per-element branches and early returns included, compared with
numpy; a mapped function that touches memory is refused (both branches are evaluated)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random


@jit
def sign_of_difference(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    return 1


@jit
def clipped_scale(x, lo):
    y = x * 2.0
    if y < lo:
        y = lo
    z = -y if y > 10.0 else y
    return z


@jit
def map_two(x_ptr, y_ptr, s_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    tl.store(s_ptr + r, tl.map_elementwise(sign_of_difference, x, y))
    # a scalar argument broadcasts to the tile
    tl.store(c_ptr + r, tl.map_elementwise(clipped_scale, x.to(tl.float32), 1.5))


def test_branches_select_per_element():
    x = np.random.default_rng(1).integers(-8, 8, 64).astype(np.int32)
    y = np.random.default_rng(2).integers(-8, 8, 64).astype(np.int32)
    s, c = poisoned(64, np.int32), poisoned(64, np.float32)
    map_two[(1,)](x, y, s, c, N=64)
    np.testing.assert_array_equal(s, np.sign(x.astype(np.int64) - y))
    ref = np.maximum(x * 2.0, 1.5)
    np.testing.assert_array_equal(c, np.where(ref > 10.0, -ref, ref).astype(np.float32))


@jit
def divmod_pair(a, b):
    return a // b, a % b


@jit
def divmod_packed(a0, a1, a2, a3, b0, b1, b2, b3):
    return a0 // b0, a1 // b1, a2 // b2, a3 // b3, a0 % b0 + 0 * a1, a1 % b1, a2 % b2, a3 % b3


@jit
def first_of_pair(a0, a1):
    return a0, a0


@jit
def map_divmod(a_ptr, b_ptr, q_ptr, r_ptr, f_ptr, PACK: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r)
    b = tl.load(b_ptr + r)
    if PACK == 1:
        q, m = tl.map_elementwise(divmod_pair, a, b)
    else:
        q, m = tl.map_elementwise(divmod_packed, a, b, pack=4)
    tl.store(q_ptr + r, q)
    tl.store(r_ptr + r, m)
    # pack=2: element 2g of each pair is the function's first argument
    f = tl.map_elementwise(first_of_pair, a.reshape(N // 8, 8), pack=2)[0]  # a 1-tuple
    tl.store(f_ptr + r, f.reshape(N))


@pytest.mark.parametrize("pack", [1, 4])
def test_multiple_results_and_packs(pack):
    a = random(64, np.uint32, 0, 1 << 31)
    b = random(64, np.uint32, 1, 1000)
    q, m, f = poisoned(64, np.uint32), poisoned(64, np.uint32), poisoned(64, np.uint32)
    map_divmod[(1,)](a, b, q, m, f, pack, N=64)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(m, a % b)
    np.testing.assert_array_equal(f, np.repeat(a[0::2], 2))


@jit
def loads_inside(p, x):
    if x > 0:
        return tl.load(p)
    return x


@jit
def map_with_load(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N), tl.map_elementwise(loads_inside, x_ptr, x))


def test_memory_access_is_refused():
    x = np.zeros(16, np.float32)
    with pytest.raises(tilec.errors.UnsupportedFeature, match="map_elementwise of a function"):
        map_with_load[(1,)](x, N=16)


@jit
def bad_pack(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(x_ptr + tl.arange(0, N), tl.map_elementwise(first_of_pair, x, pack=3))


def test_pack_must_divide():
    with pytest.raises(tilec.errors.TileTypeError, match="pack must be a power of two"):
        bad_pack[(1,)](np.zeros(16, np.float32), N=16)
