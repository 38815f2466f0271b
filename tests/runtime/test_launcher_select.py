"""Choosing the launcher: native when built, the fallback when hidden, and status() says why."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from tilec import config
from tilec.backends import launcher
from tilec.errors import LaunchError
from tilec.ir import types as T


def test_hidden_native_launcher_uses_the_fallback_and_says_why():
    with config.override(disable_launcher=True):
        st = launcher.status()
    assert st.native is False
    assert "TILEC_DISABLE_LAUNCHER" in st.reason


def test_environment_variable_hides_it_in_a_fresh_process():
    code = "from tilec.backends import launcher; s = launcher.status(); print(s.native, s.reason)"
    env = {"TILEC_DISABLE_LAUNCHER": "1", "PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False") and "disabled" in out.stdout


@pytest.mark.skipif(
    importlib.util.find_spec("tilec._launcher") is None, reason="tilec._launcher is not built"
)
def test_native_launcher_is_chosen_when_built():
    with config.override(disable_launcher=False):
        st = launcher.status()
    assert st.native is True and "_launcher" in st.reason


def test_type_codes_cover_every_scalar_type_and_pointers():
    codes = {launcher.arg_code(t) for t in T.SCALAR_TYPES}
    assert len(codes) == len(T.SCALAR_TYPES)
    assert all(len(c) == 1 for c in codes)
    assert launcher.arg_code(T.pointer(T.float32)) == b"P"
    assert launcher.arg_codes([T.pointer(T.float16), T.int32, T.float32]) == b"Pif"


def test_a_tile_has_no_type_code():
    with pytest.raises(LaunchError, match="no launch type code"):
        launcher.arg_code(T.TileType((4,), T.float32))


def test_threads_for_caps_by_programs_and_config():
    assert launcher.threads_for(1) == 1
    assert launcher.threads_for(100, requested=3) == 3
    with config.override(num_threads=2):
        assert launcher.threads_for(100) == 2
    assert launcher.threads_for(10**9) >= 1
