"""Attributes a kernel reads off the user's modules and classes (``Cfg.SCALE``,
``consts.sub.EPS``) key its cache entries and are watched like globals: a launch after one
changed raises GlobalChangedError, on both launch paths.

Before, such a value was compiled in once and never looked at again: after ``Cfg.SCALE = 3.0``
every launch in the process still multiplied by 2.0, and the disk cache entry of a process that
started with 3.0 was the same as one that started with 2.0."""

from __future__ import annotations

import types

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import GlobalChangedError
from tilec.runtime.fingerprint import scan

from .conftest import NEEDS_NATIVE

N = 16


class Cfg:
    SCALE = 2.0


class Derived(Cfg):
    pass


consts = types.ModuleType("user_consts")
consts.sub = types.ModuleType("user_consts.sub")  # type: ignore[attr-defined]
consts.sub.EPS = tl.constexpr(0.5)  # type: ignore[attr-defined]
consts.BLOCK = 16  # type: ignore[attr-defined]


@tilec.jit
def by_class(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * Derived.SCALE)


@tilec.jit
def by_module(x_ptr, out_ptr):
    offs = tl.arange(0, consts.BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + consts.sub.EPS)


@pytest.fixture(params=[True, pytest.param(False, marks=NEEDS_NATIVE)], ids=["python", "native"])
def path(request, private_cache):
    with config.override(disable_launcher=request.param):
        yield private_cache


def _run(kernel, **kw):
    x = np.arange(N, dtype=np.float32)
    out = np.full(N, np.nan, np.float32)
    kernel[(1,)](x, out, **kw)
    return x, out


def test_a_changed_class_attribute_raises(path, monkeypatch):
    kernel = tilec.jit(by_class.fn)
    x, out = _run(kernel, BLOCK=N)
    np.testing.assert_array_equal(out, x * 2.0)
    monkeypatch.setattr(Cfg, "SCALE", 2.0 * (1 + 0 * N))  # equal: launches on
    _run(kernel, BLOCK=N)
    monkeypatch.setattr(Cfg, "SCALE", 3.0)
    with pytest.raises(
        GlobalChangedError, match=r"Derived\.SCALE has changed .* from 2\.0 to 3\.0"
    ):
        _run(kernel, BLOCK=N)
    x, out = _run(tilec.jit(by_class.fn), BLOCK=N)  # a new @jit compiles the new value
    np.testing.assert_array_equal(out, x * 3.0)


def test_a_changed_module_attribute_raises(path, monkeypatch):
    kernel = tilec.jit(by_module.fn)
    x, out = _run(kernel)
    np.testing.assert_array_equal(out, x + 0.5)
    monkeypatch.setattr(consts.sub, "EPS", tl.constexpr(0.25))
    with pytest.raises(GlobalChangedError, match=r"consts\.sub\.EPS has changed"):
        _run(kernel)
    monkeypatch.setattr(consts.sub, "EPS", tl.constexpr(0.5))
    monkeypatch.setattr(consts, "sub", types.ModuleType("another"))
    with pytest.raises(GlobalChangedError, match=r"consts\.sub has changed"):
        _run(kernel)


def test_the_values_key_the_disk_cache(monkeypatch):
    before = scan(by_class.fn).key
    monkeypatch.setattr(Cfg, "SCALE", 5.0)
    assert scan(by_class.fn).key != before
    monkeypatch.setattr(Cfg, "SCALE", 2.0)
    assert scan(by_class.fn).key == before
    module_key = scan(by_module.fn).key
    monkeypatch.setattr(consts, "BLOCK", 32)
    assert scan(by_module.fn).key != module_key
