from __future__ import annotations

import pytest

from tilec import config

from . import fake_backend


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """The fake CPU backend with a private cache directory."""
    fake_backend.install(monkeypatch)
    with config.override(cache_dir=tmp_path / "cache", backend=None):
        yield fake_backend
