from __future__ import annotations

import pytest

from tilec import config
from tilec.backends import launcher

from . import fake_backend

NEEDS_NATIVE = pytest.mark.skipif(
    launcher.native_module() is None, reason="needs the native launcher (tilec._launcher)"
)


@pytest.fixture
def private_cache(tmp_path):
    """A private kernel cache directory (yielded), with the backend chosen by the arguments."""
    with config.override(cache_dir=tmp_path / "cache", backend=None):
        yield tmp_path / "cache"


@pytest.fixture
def native_launcher(private_cache):
    """A private cache with the native launcher in use, whatever TILEC_DISABLE_LAUNCHER says."""
    with config.override(disable_launcher=False):
        yield private_cache


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """The fake backend, chosen for every launch, with a private cache directory."""
    fake_backend.install(monkeypatch)
    with config.override(cache_dir=tmp_path / "cache", backend=fake_backend.NAME):
        yield fake_backend
