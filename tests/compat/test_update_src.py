"""Triton's ``JITFunction.src`` (text from ``def`` on, decorators stripped) and
``_unsafe_update_src`` (compile new text in place of the function's)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import poisoned, random

OFFSET = 5.0


@tilec.jit(do_not_specialize=["n"])
def template(X, Y, n, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs, mask=offs < n)  # noqa: F841 - GENERATE uses it once replaced
    tl.store(Y + offs, GENERATE, mask=offs < n)  # noqa: F821 - replaced before compiling


def _patched(expr: str) -> tilec.JITFunction:
    pytest.importorskip("tilec.backends.cpu")
    kernel = tilec.JITFunction(template.fn)
    kernel._unsafe_update_src(kernel.src.replace("GENERATE", expr))
    return kernel


def test_src_starts_at_def_without_decorators():
    src = template.src
    assert src.startswith("def template(X, Y, n, N: tl.constexpr):\n")
    assert "@tilec.jit" not in src
    assert src.splitlines()[1] == "    offs = tl.arange(0, N)"


def test_updated_source_compiles_and_src_returns_it():
    kernel = _patched("x * 2")
    assert "x * 2" in kernel.src and "GENERATE" not in kernel.src
    x, y = random(32, np.float32), poisoned(32, np.float32)
    kernel[(1,)](x, y, 32, N=32)
    np.testing.assert_array_equal(y, x * 2)


def test_two_updates_of_one_template_compile_separately():
    x = random(16, np.float32)
    first, second = poisoned(16, np.float32), poisoned(16, np.float32)
    _patched("x + 1")[(1,)](x, first, 16, N=16)
    _patched("x - 1")[(1,)](x, second, 16, N=16)
    np.testing.assert_array_equal(first, x + 1)
    np.testing.assert_array_equal(second, x - 1)


def test_globals_named_only_by_the_new_text_are_read():
    kernel = _patched("x + OFFSET")
    x, y = random(8, np.float32), poisoned(8, np.float32)
    kernel[(1,)](x, y, 8, N=8)
    np.testing.assert_array_equal(y, x + np.float32(OFFSET))
    assert any(name == "OFFSET" for name, _ in kernel.used_global_vals)


def test_closure_variables_of_the_template_stay_bound():
    pytest.importorskip("tilec.backends.cpu")
    scale = 3.0

    @tilec.jit
    def inner(X, Y, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Y + offs, tl.load(X + offs) * scale)

    kernel = tilec.JITFunction(inner.fn)
    kernel._unsafe_update_src(kernel.src.replace("* scale", "* scale + 1.0"))
    x, y = random(8, np.float32), poisoned(8, np.float32)
    kernel[(1,)](x, y, 8)
    # x * scale + 1.0 may run as one fused multiply-add (enable_fp_fusion), which
    # differs from numpy's two roundings by an ulp of the product near zero results.
    np.testing.assert_allclose(y, x * np.float32(3.0) + 1, rtol=1e-6, atol=1e-6)


def test_error_location_points_into_the_new_text():
    kernel = _patched("x * missing_name")
    with pytest.raises(tilec.CompileError) as info:
        kernel[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), 4, N=4)
    message = str(info.value)
    assert message.startswith("<updated source of template>:4:")
    assert "x * missing_name" in message


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("def template(X, Y, N: tl.constexpr):\n    pass\n", "must keep its parameters"),
        ("def template(X, Y, n, N: tl.constexpr):\n    pass\nx = 1\n", "exactly one 'def'"),
        ("def template(X, Y, n, N:\n", "not valid Python"),
    ],
)
def test_bad_new_text_is_refused_clearly(text, match):
    kernel = tilec.JITFunction(template.fn)
    with pytest.raises(tilec.errors.UsageError, match=match):
        kernel._unsafe_update_src(text)
