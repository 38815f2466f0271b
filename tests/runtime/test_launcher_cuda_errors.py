"""CUDA launches without a driver, and with bad arguments, fail as LaunchError (never a crash)."""

from __future__ import annotations

import ctypes.util
import importlib.util
import sys

import pytest

from tilec import config
from tilec.backends import launcher
from tilec.errors import LaunchError

needs_native = pytest.mark.skipif(
    importlib.util.find_spec("tilec._launcher") is None, reason="tilec._launcher is not built"
)
BOTH = [pytest.param(True, marks=needs_native), False]


def has_libcuda() -> bool:
    name = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        ctypes.CDLL(name)
    except OSError:
        return ctypes.util.find_library("cuda") is not None
    return True


@pytest.mark.skipif(has_libcuda(), reason="a CUDA driver is installed here")
@pytest.mark.parametrize("native", BOTH)
def test_launch_without_a_driver_says_so(native):
    with (
        config.override(disable_launcher=not native),
        pytest.raises(LaunchError, match="CUDA driver"),
    ):
        launcher.launch_cuda(1, (1, 1, 1), (32, 1, 1), 0, 0, b"if", (3, 1.5))


@pytest.mark.parametrize("native", BOTH)
@pytest.mark.parametrize(
    ("grid", "block", "shared", "codes", "args"),
    [
        ((1, 1), (32, 1, 1), 0, b"i", (1,)),
        ((1, 1, 1), (32, -1, 1), 0, b"i", (1,)),
        ((1, 1, 1), (32, 1, 1), -5, b"i", (1,)),
        ((1, 1, 1), (32, 1, 1), 0, b"i", (1, 2)),
        ((1, 1, 1), (32, 1, 1), 0, b"b", (1000,)),
        ((1, 1, 1), (32, 1, 1), 0, b"i" * 600, (1,) * 600),
    ],
)
def test_bad_launch_arguments_are_launch_errors(native, grid, block, shared, codes, args):
    with config.override(disable_launcher=not native), pytest.raises(LaunchError):
        launcher.launch_cuda(1, grid, block, shared, 0, codes, args)
