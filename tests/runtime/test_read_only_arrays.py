"""A read-only array passed to a pointer the kernel writes through is a UsageError naming it
(it would crash the process or corrupt an immutable object); read-only inputs stay allowed.
The written parameters come from the tile IR (runtime/written_params.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UsageError
from tilec.runtime import compiler, specialize
from tilec.runtime.written_params import module_written_params


@tilec.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@tilec.jit
def histogram(idx_ptr, count_ptr, BLOCK: tl.constexpr):
    tl.atomic_add(count_ptr + tl.load(idx_ptr + tl.arange(0, BLOCK)), 1)


@tilec.jit
def strided_rows(x_ptr, out_ptr, other_ptr, rows, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    dst = out_ptr if FIRST else other_ptr
    for _ in range(rows):  # a loop-carried pointer
        tl.store(dst + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)))
        dst += BLOCK


def _writes(kernel, *args):
    cx = [p.constexpr for p in kernel.params]
    _, specs = specialize.specialize(kernel.arg_names, list(args), cx)
    return module_written_params(compiler.build_ir(kernel, specs))


def test_the_written_parameters():
    x, i = np.zeros(16, np.float32), np.zeros(16, np.int32)
    assert _writes(scale, x, x, 16, 16) == ("out_ptr",)
    assert _writes(histogram, i, i, 16) == ("count_ptr",)
    assert _writes(strided_rows, x, x, x, 2, True, 16) == ("out_ptr",)
    assert _writes(strided_rows, x, x, x, 2, False, 16) == ("other_ptr",)


def test_a_read_only_output_is_refused_a_read_only_input_is_not():
    rng = np.random.default_rng()
    x = rng.standard_normal(16).astype(np.float32)
    x.setflags(write=False)  # a read-only input
    out = np.full(16, np.nan, np.float32)
    scale[(1,)](x, out, 16, BLOCK=16)
    np.testing.assert_allclose(out, x.astype(np.float64) * 2, rtol=1e-6)
    frozen = np.frombuffer(bytes(64), np.float32)
    with pytest.raises(UsageError, match="'out_ptr' is a read-only array"):
        scale[(1,)](x, frozen, 16, BLOCK=16)  # the warm launch function checks it
    assert not frozen.any()


def test_the_first_launch_is_checked_too():
    @tilec.jit
    def fill(out_ptr, BLOCK: tl.constexpr):
        tl.store(out_ptr + tl.arange(0, BLOCK), 1.0)

    frozen = np.frombuffer(bytes(64), np.float32)
    with pytest.raises(UsageError, match="'out_ptr' is a read-only array"):
        fill[(1,)](frozen, BLOCK=16)
    with pytest.raises(UsageError, match="read-only"):
        fill[(1,)](frozen, BLOCK=16, num_warps=2)  # the launch path with options
    assert not frozen.any()
