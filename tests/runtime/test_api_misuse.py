"""Host-API misuse is a UsageError naming what is wrong, never a bare Python exception."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import UsageError


@tilec.jit
def _copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@pytest.mark.parametrize("signature", [None, 5, 1.5])
def test_compile_needs_a_signature_string_or_dict(signature) -> None:
    with pytest.raises(UsageError, match="signature must be a string"):
        tilec.compile(_copy, signature)


@pytest.mark.parametrize("thing", [int, len, 3])
def test_jit_needs_a_python_function(thing) -> None:
    with pytest.raises(UsageError, match=r"tilec\.jit needs a Python function"):
        tilec.jit(thing)


@pytest.mark.parametrize("configs", [[1, 2], []])
def test_autotune_needs_configs(configs) -> None:
    with pytest.raises(UsageError, match=r"needs a non-empty list of tilec\.Config"):
        tilec.autotune(configs=configs, key=["n"])


def test_unwritable_dump_dir_warns_and_runs(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    x = np.arange(8, dtype=np.float32)
    out = np.full(8, np.nan, np.float32)
    with (
        config.override(dump_dir=blocker / "dumps", cache_enabled=False),
        pytest.warns(RuntimeWarning, match="TILEC_DUMP_DIR"),
    ):
        _copy[(1,)](x, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, x)
