"""The generated reference pages match their sources: every environment variable config.py
reads is documented with its field, and every public ``tl`` name has a row."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilec.language as tl
from tilec import config

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs"))

from gen import env_reference, language_reference


def test_every_variable_config_reads_is_on_the_page():
    page = env_reference.render()
    names = env_reference.all_names()
    assert {
        "TILEC_CACHE_DIR",
        "TRITON_CACHE_DIR",
        "TRITON_PRINT_AUTOTUNING",
        "TRITON_ALWAYS_COMPILE",
        "TRITON_KERNEL_DUMP",
        "TRITON_DUMP_DIR",
    } <= names
    for name in names:
        assert f"`{name}`" in page, name


def test_every_config_field_has_a_variable_and_a_description():
    rows = {s.field: s for s in env_reference.settings()}
    assert set(rows) == set(config.Config.__dataclass_fields__)
    for field, row in rows.items():
        assert row.variables, f"Config.{field} reads no environment variable"
        assert len(row.description) > 10, f"Config.{field} has no comment to document it"


def test_variables_are_attributed_to_the_field_that_reads_them():
    rows = {s.field: s.variables for s in env_reference.settings()}
    assert rows["cache_dir"] == ("TILEC_CACHE_DIR", "TRITON_CACHE_DIR")
    assert set(rows["dump_dir"]) == {"TILEC_DUMP_DIR", "TRITON_KERNEL_DUMP", "TRITON_DUMP_DIR"}


def test_every_public_tl_name_is_in_the_language_reference():
    page = language_reference.render()
    for name in tl.__all__:
        assert f"`tl.{name}`" in page, name
    assert "| `tl.load` | `(pointer, mask=None, other=None" in page


# --- the TRITON_* variables tilec honours --------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "field", "value"),
    [
        ({"TRITON_CACHE_DIR": "/tmp/tc"}, "cache_dir", Path("/tmp/tc")),
        (
            {"TRITON_CACHE_DIR": "/tmp/tc", "TILEC_CACHE_DIR": "/tmp/own"},
            "cache_dir",
            Path("/tmp/own"),
        ),
        ({"TRITON_PRINT_AUTOTUNING": "1"}, "print_autotuning", True),
        ({"TRITON_ALWAYS_COMPILE": "1"}, "always_compile", True),
        ({"TILEC_ALWAYS_COMPILE": "yes"}, "always_compile", True),
        ({}, "always_compile", False),
        ({"TRITON_KERNEL_DUMP": "1", "TRITON_DUMP_DIR": "/tmp/d"}, "dump_dir", Path("/tmp/d")),
        ({"TRITON_DUMP_DIR": "/tmp/d"}, "dump_dir", None),  # Triton dumps only with KERNEL_DUMP
        ({"TRITON_KERNEL_DUMP": "1", "TILEC_DUMP_DIR": "/tmp/own"}, "dump_dir", Path("/tmp/own")),
    ],
)
def test_triton_variables_are_honoured(env, field, value):
    assert getattr(config.Config.from_env(env), field) == value


def test_kernel_dump_without_a_folder_uses_a_default():
    dump = config.Config.from_env({"TRITON_KERNEL_DUMP": "1"}).dump_dir
    assert dump is not None and dump.name == "tilec-dump"


def test_always_compile_skips_the_cache_lookup(tmp_path, monkeypatch):
    import numpy as np

    import tilec
    from tilec.runtime import compiler
    from tilec.runtime.compile_api import parse_signature, parse_target

    @tilec.jit
    def fill(out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)

    calls = []
    real = compiler._compile_uncached
    monkeypatch.setattr(compiler, "_compile_uncached", lambda *a: calls.append(1) or real(*a))
    with config.override(cache_dir=tmp_path / "cache"):
        specs = parse_signature(fill, "*fp32, i32, 16")
        target = parse_target("cpu")
        compiler.compile(fill, specs, target)
        compiler.compile(fill, specs, target)
        assert len(calls) == 1  # the second came from the disk cache
        with config.override(always_compile=True):
            kernel = compiler.compile(fill, specs, target)
        assert len(calls) == 2
    out = np.full(16, np.nan, np.float32)
    assert kernel is not None
    fill[(1,)](out, 16, BLOCK=16)
    np.testing.assert_array_equal(out, np.arange(16, dtype=np.float32))


def test_print_autotuning_names_the_winner_and_its_time(tmp_path, capsys):
    import numpy as np

    import tilec

    times = {8: 3.0, 16: 1.5, 32: 2.0}  # injected timings: the pick does not depend on the clock

    def fake_bench(fn, quantiles=None):
        fn()
        return [times[current["BLOCK"]]] * 3

    current = {}

    def remember(kwargs):
        current.update(kwargs)

    configs = [tilec.Config({"BLOCK": b}, pre_hook=remember) for b in times]

    @tilec.autotune(configs=configs, key=["n"], do_bench=fake_bench, cache_results=False)
    @tilec.jit
    def ones(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 1.0, mask=offs < n)

    x = np.zeros(40, np.float32)
    with config.override(print_autotuning=True, cache_dir=tmp_path / "cache"):
        ones[lambda meta: (tilec.cdiv(40, meta["BLOCK"]),)](x, 40)
    err = capsys.readouterr().err
    assert "best config selected: BLOCK: 16" in err and "its time: 1.5000 ms" in err
    np.testing.assert_array_equal(x, np.ones(40, np.float32))
