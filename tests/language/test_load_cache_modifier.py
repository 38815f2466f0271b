"""Every cache modifier Triton's ``tl.load`` takes (``.ca .cg .cs .cv``) compiles, runs on the
CPU (where it changes nothing) and reaches the PTX as ``ld.global<modifier>``."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host_np
from support.run import jit

MODIFIERS = ["", ".ca", ".cg", ".cs", ".cv"]


@jit
def cached_copy(dst, src, CACHE: tl.constexpr):
    offsets = tl.arange(0, 128)
    tl.store(dst + offsets, tl.load(src + offsets, cache_modifier=CACHE))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cache", MODIFIERS)
def test_load_cache_modifier_runs(device, cache):
    x = np.random.default_rng().standard_normal(128).astype(np.float32)
    y = dev(np.full(128, np.nan, np.float32), device)
    cached_copy[(1,)](y, dev(x, device), CACHE=cache)
    np.testing.assert_array_equal(host_np(y), x)


@pytest.mark.parametrize("cache", MODIFIERS)
def test_load_cache_modifier_reaches_the_ptx(cache):
    ptx = assert_assembles(cached_copy, "*fp32", "*fp32", cache)
    for modifier in MODIFIERS[1:]:
        assert (f"ld.global{modifier}" in ptx) == (modifier == cache), modifier
