"""A third backend plugs in through the protocol alone: the fake backend (fake_backend.py, one
``registry.register`` line) compiles, loads and launches a kernel with no runtime change."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
from tilec import config
from tilec.backends import registry
from tilec.backends.base import Compiler, Driver, Launcher
from tilec.errors import UsageError
from tilec.runtime import driver as active

from . import fake_backend
from .fake_backend import PROGRAMS, f32


def saxpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tilec.language.constexpr):
    pass


def _saxpy(args, pid, grid):
    x, y, out, a, n = args
    for i in range(pid * 4, min(pid * 4 + 4, n)):
        f32(out, i).value = a * f32(x, i).value + f32(y, i).value


@pytest.fixture
def plugged(monkeypatch, tmp_path):
    fake_backend.install(monkeypatch)
    PROGRAMS["saxpy"] = _saxpy
    with config.override(cache_dir=tmp_path / "cache", backend=None):
        yield registry.get(fake_backend.NAME)


def test_the_backend_satisfies_the_protocol(plugged):
    assert isinstance(plugged.compiler, Compiler)
    assert isinstance(plugged.driver, Driver)
    assert fake_backend.NAME in registry.names()


def test_a_kernel_compiles_loads_and_launches_on_it(plugged):
    rng = np.random.default_rng()
    n = 37
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)  # poisoned
    kernel = tilec.jit(backend=fake_backend.NAME)(saxpy)
    kernel[(tilec.cdiv(n, 4),)](x, y, out, 1.5, n, BLOCK=4)
    want = 1.5 * x.astype(np.float64) + y.astype(np.float64)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    compiled = kernel.warmup(x, y, out, 1.5, n, BLOCK=4, grid=(1,))
    assert compiled.metadata.target.kind == fake_backend.NAME
    assert isinstance(compiled.launcher, Launcher)
    assert fake_backend.STATS.compiles == 1 and fake_backend.STATS.loads == 1


def test_the_configuration_can_choose_it(plugged):
    out = np.zeros(8, np.float32)
    x = np.ones(8, np.float32)
    with config.override(backend=fake_backend.NAME):
        tilec.jit(saxpy)[(2,)](x, x, out, 2.0, 8, BLOCK=4)
    assert (out == 3).all()


def test_the_host_api_answers_for_it(plugged):
    active.set_active(active.ActiveDriver(fake_backend.NAME))
    try:
        assert active.active.get_current_target().backend == fake_backend.NAME
        assert active.active.utils.get_device_properties()["warpSize"] == 1
        ms = tilec.testing.do_bench(lambda: None, warmup=1, rep=2, device=fake_backend.NAME)
        assert ms >= 0
    finally:
        active.reset_active()


def test_its_memory_is_checked_against_the_arguments(plugged):
    class OnDevice:
        __cuda_array_interface__ = {"data": (0x1000, False), "typestr": "<f4", "shape": (4,)}

    kernel = tilec.jit(backend=fake_backend.NAME)(saxpy)
    with pytest.raises(UsageError, match="requested but arguments"):
        kernel[(1,)](OnDevice(), OnDevice(), OnDevice(), 1.0, 4, BLOCK=4)


def test_a_name_is_registered_once():
    fake_backend.register()
    with pytest.raises(UsageError, match="registered already"):
        registry.register(fake_backend.NAME, registry.BACKENDS[fake_backend.NAME])
