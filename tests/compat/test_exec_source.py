"""Kernels whose text no file holds: defined by ``exec`` of a string (Triton's test suite builds
kernels so), or registered in ``linecache`` by a tool; error locations point into that text."""

from __future__ import annotations

import linecache
import textwrap

import numpy as np
import pytest

import tilec
from support.run import poisoned, random

TEMPLATE = textwrap.dedent(
    """
    import tilec
    import tilec.language as tl

    @tilec.jit
    def kernel(X, Y, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        tl.store(Y + offs, EXPR)
    """
)


def _exec_kernel(expr: str) -> tilec.JITFunction:
    pytest.importorskip("tilec.backends.cpu")
    text = TEMPLATE.replace("EXPR", expr)
    namespace: dict = {}
    exec(text, namespace)  # the caller's local 'text' is the source
    return namespace["kernel"]


@pytest.mark.parametrize(("expr", "ref"), [("x * 3", lambda x: x * 3), ("-x", np.negative)])
def test_exec_defined_kernel_runs(expr, ref):
    kernel = _exec_kernel(expr)
    x = random(64, np.float32)
    y = poisoned(64, np.float32)
    kernel[(1,)](x, y, 64)
    np.testing.assert_array_equal(y, ref(x.astype(np.float64)).astype(np.float32))


def test_two_exec_kernels_with_one_name_do_not_share_a_compilation():
    x = random(32, np.float32)
    first, second = poisoned(32, np.float32), poisoned(32, np.float32)
    _exec_kernel("x + 1")[(1,)](x, first, 32)
    _exec_kernel("x + 2")[(1,)](x, second, 32)
    np.testing.assert_array_equal(first, x + 1)
    np.testing.assert_array_equal(second, x + 2)


def test_error_in_exec_defined_kernel_points_into_the_text():
    kernel = _exec_kernel("x * undefined_name")
    with pytest.raises(tilec.CompileError) as info:
        kernel[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), 4)
    message = str(info.value)
    assert message.startswith("<string>:9:")  # the store's line in TEMPLATE's text
    assert "tl.store(Y + offs, x * undefined_name)" in message
    assert "^" in message


def test_text_not_matching_the_code_is_refused():
    """The exec caller's strings are accepted only when they compile to the running code."""
    pytest.importorskip("tilec.backends.cpu")
    code = compile(TEMPLATE.replace("EXPR", "x + 1"), "<generated>", "exec")
    text = TEMPLATE.replace("EXPR", "x + 2")  # noqa: F841 - a look-alike text in this frame
    namespace: dict = {}
    exec(code, namespace)
    with pytest.raises(tilec.CompileError, match="cannot read the source"):
        namespace["kernel"][(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), 4)


def test_text_registered_in_linecache_is_read():
    pytest.importorskip("tilec.backends.cpu")
    text = TEMPLATE.replace("EXPR", "x * x")
    name = "<tilec-test-linecache-kernel>"
    linecache.cache[name] = (len(text), None, text.splitlines(keepends=True), name)
    try:
        namespace: dict = {}
        exec(compile(text, name, "exec"), namespace)
        del text  # only linecache holds it now
        x = random(16, np.float32)
        y = poisoned(16, np.float32)
        namespace["kernel"][(1,)](x, y, 16)
        np.testing.assert_array_equal(y, x * x)
    finally:
        linecache.cache.pop(name, None)
