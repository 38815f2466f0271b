"""Source positions map back into the user's file, for indented kernels too."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build
from tilec.errors import CompileError
from tilec.frontend.parse import parse_function


def test_indented_kernel_locations():
    def kernel(p):
        """A docstring whose second line is
        less indented than the code."""
        tl.store(p, missing_name)  # noqa: F821

    with pytest.raises(CompileError) as info:
        build(kernel, "*fp32")
    loc = info.value.loc
    assert loc.file == __file__
    assert loc.line == kernel.__code__.co_firstlineno + 3
    assert loc.col == 8 + len("tl.store(p, ")
    assert loc.source_line().strip().startswith("tl.store(p, missing_name)")


def test_parse_is_cached_per_function():
    def kernel(p):
        tl.store(p, 1.0)

    assert parse_function(kernel) is parse_function(kernel)
    assert parse_function(kernel).name == "kernel"


def test_source_must_be_available():
    namespace: dict = {}
    exec("def kernel(p):\n    pass\n", namespace)
    with pytest.raises(CompileError, match="cannot read the source of"):
        build(namespace["kernel"], "*fp32")
