"""Kernels nested deeper than Python's recursion limit allows (a long expression chain, a
chain of @jit calls) are a located UnsupportedFeature, not a RecursionError; deep but
reasonable nesting (90 nested ifs) still compiles and runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.errors import UnsupportedFeature


def _module(tmp_path: Path, name: str, source: str):  # type: ignore[no-untyped-def]
    path = tmp_path / f"{name}.py"
    path.write_text("import tilec\nimport tilec.language as tl\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # @jit callees are looked up in the module's globals
    spec.loader.exec_module(module)
    return module


def _arrays() -> tuple[np.ndarray, np.ndarray]:
    return np.ones(4, np.float32), np.full(4, np.nan, np.float32)


def test_long_expression_chain(tmp_path: Path) -> None:
    terms = " + ".join(["v"] * 900)
    m = _module(
        tmp_path, "deep_chain", f"def k(x, out):\n    v = tl.load(x)\n    tl.store(out, {terms})\n"
    )
    with pytest.raises(UnsupportedFeature, match="nested too deeply") as info:
        tilec.jit(m.k)[(1,)](*_arrays())
    assert info.value.loc is not None and info.value.loc.file.endswith("deep_chain.py")


def test_long_chain_of_jit_calls(tmp_path: Path) -> None:
    source = "".join(
        f"@tilec.jit\ndef f{i}(v):\n    return f{i + 1}(v) + 1.0\n\n" for i in range(400)
    )
    source += "@tilec.jit\ndef f400(v):\n    return v\n\n"
    source += "def k(x, out):\n    tl.store(out, f0(tl.load(x)))\n"
    m = _module(tmp_path, "deep_calls", source)
    with pytest.raises(UnsupportedFeature, match="recursion limit") as info:
        tilec.jit(m.k)[(1,)](*_arrays())
    text = str(info.value)
    assert "deep_calls.py:" in text and "^" in text.splitlines()[-1]


def test_ninety_nested_ifs_still_compile(tmp_path: Path) -> None:
    body, indent = "", "    "
    for i in range(90):
        body += f"{indent}if n > {i}:\n"
        indent += "    "
    body += f"{indent}v = v + 1.0\n"
    m = _module(
        tmp_path, "deep_ifs", f"def k(x, out, n):\n    v = tl.load(x)\n{body}    tl.store(out, v)\n"
    )
    x, out = _arrays()
    tilec.jit(m.k)[(1,)](x, out, 100)
    assert out[0] == 2.0
    tilec.jit(m.k)[(1,)](x, out, 50)
    assert out[0] == 1.0
