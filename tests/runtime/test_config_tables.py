"""A setting that changes what a kernel compiles to (``experimental``, ``disable_mma_v3``,
``ptx_version`` ...) never finds a kernel compiled under another value in the process's
table, on either launch path: the disk cache keys them apart, and the in-memory table must not
return the other one first. Before, only five settings chose the table, so switching
``disable_mma_v3`` in a running process kept launching the wgmma kernel."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config

from .conftest import NEEDS_NATIVE


@tilec.jit
def double(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)


@pytest.mark.parametrize(
    "disable_launcher", [True, pytest.param(False, marks=NEEDS_NATIVE)], ids=["python", "native"]
)
@pytest.mark.parametrize(
    "changes",
    [{"experimental": frozenset({"cuda-pipelining"})}, {"disable_mma_v3": True}],
    ids=["experimental", "disable_mma_v3"],
)
def test_each_setting_compiles_its_own_kernel(private_cache, disable_launcher, changes):
    kernel = tilec.jit(double.fn)
    x = np.ones(8, np.float32)
    with config.override(disable_launcher=disable_launcher):
        kernel[(1,)](x, BLOCK=8)
        with config.override(**changes):
            kernel[(1,)](x, BLOCK=8)
        kernel[(1,)](x, BLOCK=8)  # back: the first table again, no compile
    np.testing.assert_array_equal(x, np.full(8, 8.0, np.float32))
    assert len(list((private_cache / "kernels").glob("*.tck"))) == 2
