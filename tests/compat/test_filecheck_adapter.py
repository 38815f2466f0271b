"""``triton._filecheck`` under the alias: ``run_parser`` runs tilec's frontend on a kernel
specialized for example arguments (compile errors as a launch raises them); the FileCheck
helpers, which match Triton's MLIR text, refuse clearly."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.compat.triton import _filecheck


@tilec.jit
def static_checks(X, N, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK == 16)
    tl.store(X + tl.arange(0, BLOCK), N)


@tilec.jit
def no_arguments():
    x: tl.constexpr = 42
    tl.static_assert(x == 41)


def test_run_parser_builds_the_module():
    module = _filecheck.run_parser(
        static_checks,
        args=(np.zeros(16, np.float32), 3),
        kwargs={"BLOCK": 16, "sanitize_overflow": False},
    )
    from tilec.ir.printer import print_ir

    text = print_ir(module)
    assert "static_checks" in text and "store" in text


def test_run_parser_raises_compile_errors():
    with pytest.raises(tilec.CompileError, match="static_assert"):
        _filecheck.run_parser(no_arguments)
    with pytest.raises(tilec.errors.UsageError):
        _filecheck.run_parser(static_checks, args=(1, 2, 3, 4))


def test_filecheck_is_refused_clearly():
    test = _filecheck.filecheck_test(no_arguments)
    with pytest.raises(tilec.errors.UnsupportedFeature, match="FileCheck"):
        test()
    with pytest.raises(tilec.errors.UnsupportedFeature, match="TTIR"):
        _filecheck.run_filecheck_test(no_arguments)


def test_alias_resolves_the_module():
    from tilec.compat import alias

    assert alias.tilec_module_name("triton._filecheck") == "tilec.compat.triton._filecheck"
