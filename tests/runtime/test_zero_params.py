"""A kernel without parameters launches on both launch paths (its generated launch function
once had an empty ``try:`` block, an IndentationError at the first launch)."""

from __future__ import annotations

import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import DeviceAssertError
from tilec.runtime.binder import generate_source

from .conftest import NEEDS_NATIVE


@tilec.jit
def nothing():
    pass


@tilec.jit(debug=True)
def only_first_program():
    tl.device_assert(tl.program_id(0) < 1, "only program 0 may run")


def test_the_launch_source_compiles():
    compile(generate_source("nothing", ()), "<launch>", "exec")


def _launch_twice_each_way() -> None:
    for _ in range(2):  # cold, then warm
        assert nothing[(1,)]().name == "nothing"
        nothing[lambda meta: (3,)]()
        nothing[(2,)](num_warps=2)
        only_first_program[(1,)]()
    # the kernel really runs: the second program fails its assertion
    with pytest.raises(DeviceAssertError, match=r"only program 0 may run.*program id \(1, 0, 0\)"):
        only_first_program[(2,)]()
    only_first_program[(1,)]()


def test_python_launch_path(private_cache):
    with config.override(disable_launcher=True):
        _launch_twice_each_way()


@NEEDS_NATIVE
def test_native_launch_path(native_launcher):
    _launch_twice_each_way()
    assert type(nothing[(1,)]).__name__ == "Bound"  # the warm launches above went through C
