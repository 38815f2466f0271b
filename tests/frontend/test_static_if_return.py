"""A ``return`` inside a compile-time ``if`` (directly, or in a run-time ``if`` nested in it) sees
the statements after that ``if``: Triton's ``test_if_return`` is the model. The same kernels run
on CUDA (marked gpu)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host_np
from support.run import jit


@jit
def if_return(ExitEarly, Out, cond: tl.constexpr, mode: tl.constexpr):
    if mode == "dynamic":
        if tl.load(ExitEarly):
            tl.store(Out, 0)
            return
    else:
        if cond:
            tl.store(Out, 0)
            return
    tl.store(Out, 1)
    tl.store(Out + 1, 2)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["dynamic", "static"])
@pytest.mark.parametrize("exit_early", [True, False])
def test_return_in_a_static_if(device, mode, exit_early):
    out = dev(np.full(2, -1, np.int32), device)
    flag = dev(np.array([int(exit_early)], np.int32), device)
    if_return[(1,)](flag, out, exit_early, mode)
    np.testing.assert_array_equal(host_np(out), [0, -1] if exit_early else [1, 2])


@jit
def _clamp_or_keep(x, LIMIT: tl.constexpr):
    if LIMIT > 0:  # noqa: SIM102 (a run-time if nested in a static one is the case)
        if x > LIMIT:
            return LIMIT
    return x


@jit
def nested_static(Out, x, LIMIT: tl.constexpr):
    tl.store(Out, _clamp_or_keep(x, LIMIT))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("x, limit, expect", [(5, 3, 3), (2, 3, 2), (5, 0, 5)])
def test_return_in_an_inlined_static_if(device, x, limit, expect):
    out = dev(np.full(1, -1, np.int32), device)
    nested_static[(1,)](out, x, LIMIT=limit)
    assert host_np(out)[0] == expect


def test_cuda_lowering_assembles():
    assert_assembles(if_return, "*i32", "*i32", False, "dynamic")
