"""``tilec.knobs`` (``triton.knobs``): the knobs tilec honours are its configuration; others are
refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

import tilec
from tilec import config
from tilec.errors import UnsupportedName


def test_cache_dir_is_the_configuration(tmp_path):
    with config.override():
        tilec.knobs.cache.dir = str(tmp_path)
        assert config.get().cache_dir == Path(tmp_path)
        assert tilec.knobs.cache.dir == str(tmp_path)


def test_scope_restores_on_exit(tmp_path):
    before = config.get()
    with tilec.knobs.runtime.scope():
        tilec.knobs.runtime.debug = not before.debug
        tilec.knobs.autotuning.print = True
        assert config.get().debug is (not before.debug)
        assert config.get().print_autotuning is True
    assert config.get() == before


def test_reset_reads_the_environment(monkeypatch):
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    with config.override(always_compile=False):
        assert tilec.knobs.compilation.always_compile is False
        tilec.knobs.compilation.copy().reset()
        assert tilec.knobs.compilation.always_compile is True


def test_knobs_tilec_does_not_honour_are_refused():
    with pytest.raises(UnsupportedName, match=r"knobs\.runtime\.override_arch .*debug, interpret"):
        tilec.knobs.runtime.override_arch = "sm90"
    with pytest.raises(UnsupportedName, match=r"knobs\.amd is not supported"):
        _ = tilec.knobs.amd.use_buffer_ops
    with pytest.raises(UnsupportedName, match=r"knobs\.language\.fp32_default .*default_fp_fusion"):
        tilec.knobs.language.fp32_default = "ieee"
    assert not hasattr(tilec.knobs.cache, "home_dir")  # an AttributeError too
    assert set(tilec.knobs.cache.knob_descriptors) == {"dir"}
    assert tilec.knobs.cache.knob_descriptors["dir"].key == "TRITON_CACHE_DIR"
