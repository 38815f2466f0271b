"""The CPU driver: host target, loading objects, and C functions resolved before linking."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.backends import registry
from tilec.errors import LaunchError
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel
from .test_objfile import host_object


def _copy(b, x) -> None:
    p = b.addptr(b.splat(x, (16,)), b.make_range(0, 16))
    b.store(p, b.math("lgamma", b.load(p)))


def test_host_target() -> None:
    driver = registry.get("cpu").driver
    assert driver.is_available()
    t = driver.current_target()
    assert t.kind == "cpu" and t.arch and t.triple


def test_registry_is_lazy_and_named() -> None:
    assert registry.get("cpu") is registry.get("cpu")
    with pytest.raises(Exception, match="unknown backend"):
        registry.get("tpu")


def test_missing_c_function_is_a_launch_error() -> None:
    compiled = Kernel(kernel([pointer_arg("x", T.float32)], _copy)).compiled
    symbol = compiled.metadata.symbol
    ir = f"declare void @tilec_no_such_function(ptr)\ndefine void @{symbol}(ptr %a) {{\n"
    ir += "  call void @tilec_no_such_function(ptr %a)\n  ret void\n}\n"
    bad = type(compiled)(compiled.metadata, {**compiled.asm, "obj": host_object(ir)})
    with pytest.raises(LaunchError, match="tilec_no_such_function"):
        registry.get("cpu").driver.load(bad)


def test_libm_call_resolves_and_runs() -> None:
    x = np.linspace(0.5, 8, 16).astype(np.float32)
    want = np.array([np.float32(__import__("math").lgamma(v)) for v in x])
    Kernel(kernel([pointer_arg("x", T.float32)], _copy))(1, x)
    np.testing.assert_allclose(x, want, rtol=1e-6)


def test_assembly_on_request() -> None:
    k = Kernel(kernel([pointer_arg("x", T.float32)], _copy))
    assert "asm" not in k.compiled.asm
    text = registry.get("cpu").compiler.assembly(k.compiled)
    assert k.compiled.metadata.symbol in text
