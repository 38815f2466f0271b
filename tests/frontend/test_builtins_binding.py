"""tl builtins bind keyword and positional arguments as Triton documents them; tensor methods,
Python builtins on tensors, hints and debug ops produce the expected IR."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build, op_names
from tilec.errors import UsageError
from tilec.ir import ops as O


def k_keywords(x_ptr, out_ptr, n):
    offs = tl.arange(start=0, end=16)
    mask = offs < n
    x = tl.load(
        pointer=x_ptr + offs,
        mask=mask,
        other=0.0,
        cache_modifier=".cg",
        eviction_policy="evict_last",
    )
    y = tl.where(condition=mask, x=x, y=1.0)
    tl.store(pointer=out_ptr + offs, value=y, mask=mask, cache_modifier=".wb")


def test_keyword_arguments():
    ops = list(build(k_keywords, "*fp32", "*fp32", "i32").walk())
    load = next(op for op in ops if isinstance(op, O.LoadOp))
    assert (load.cache, load.eviction, load.has_mask, load.has_other) == (
        ".cg",
        "evict_last",
        True,
        True,
    )
    assert next(op for op in ops if isinstance(op, O.StoreOp)).cache == ".wb"


def k_positional(x_ptr, out_ptr, n):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs, offs < n, 0.0)
    tl.store(out_ptr + offs, x, offs < n)


def test_positional_arguments():
    assert op_names(k_positional, "*fp32", "*fp32", "i32").count("load") == 1


def k_methods(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.static_assert(x.shape == (8, 4) and x.T.shape == (4, 8))
    tl.static_assert(x[None, :, :].shape == (1, 8, 4) and x[:, None].shape == (8, 1, 4))
    s = x.sum(axis=0) + x.max(0) + x.to(tl.float16).to(tl.float32).min(axis=0)
    tl.static_assert(x.reshape(32).shape == (32,) and x.reshape((4, 8)).shape == (4, 8))
    tl.store(out_ptr + tl.arange(0, 4), s + x.cumsum(0).sum(0) + x.exp().sum(0))


def test_tensor_methods_and_attributes():
    build(k_methods, "*fp32", "*fp32")


def k_python_builtins(x_ptr, out_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    lo = min(BLOCK, 4)
    tl.store(out_ptr + tl.arange(0, BLOCK), max(x, 0.0) + min(x, 1.0) + abs(x) + lo)
    print("x", x)


def test_python_min_max_abs_print_on_tensors():
    ops = list(build(k_python_builtins, "*fp32", "*fp32", 16).walk())
    kinds = [op.kind.value for op in ops if isinstance(op, O.BinaryOp)]
    assert "max" in kinds and "min" in kinds
    assert any(isinstance(op, O.MathOp) and op.fn == "abs" for op in ops)
    # Triton's spacing of the prefix (builtins_debug.print_prefix)
    assert next(op for op in ops if isinstance(op, O.PrintOp)).prefix == " x: "


def k_none_check(x_ptr, bias_ptr, out_ptr):
    x = tl.load(x_ptr)
    if bias_ptr is not None:
        x += tl.load(bias_ptr)
    tl.store(out_ptr, x)


def test_is_none_is_compile_time():
    assert op_names(k_none_check, "*fp32", None, "*fp32").count("load") == 1
    assert op_names(k_none_check, "*fp32", "*fp32", "*fp32").count("load") == 2


def k_hints(x_ptr, n):
    offs = tl.max_contiguous(tl.multiple_of(tl.arange(0, 16), 16), 16)
    tl.assume(n > 0)
    tl.device_assert(offs < n, "out of range")
    tl.device_print("offs", offs, hex=True)
    tl.debug_barrier()
    tl.store(x_ptr + offs, 1.0)


def test_hints_and_debug_ops():
    ops = list(build(k_hints, "*fp32", "i32").walk())
    hints = [op for op in ops if isinstance(op, O.HintOp)]
    assert [h.multiple_of for h in hints] == [(16,), ()]
    assert [h.max_contiguous for h in hints] == [(), (16,)]
    assert any(isinstance(op, O.AssumeOp) for op in ops)
    assert next(op for op in ops if isinstance(op, O.AssertOp)).message == "out of range"
    assert next(op for op in ops if isinstance(op, O.PrintOp)).hex


def test_builtins_refuse_to_run_outside_kernels():
    with pytest.raises(
        UsageError, match=r"tl\.load can only be called inside a @tilec\.jit kernel"
    ):
        tl.load(None)
    with pytest.raises(UsageError, match=r"tl\.softmax can only be called"):
        tl.softmax(None)


def k_unsupported(p):
    tl.store(p, tl.inline_asm_elementwise("mov", "=r", [p], dtype=tl.int32, is_pure=True, pack=1))


def test_unsupported_feature_is_named():
    from tilec.errors import UnsupportedFeature

    with pytest.raises(UnsupportedFeature) as info:
        build(k_unsupported, "*i32")
    assert info.value.message == "tl.inline_asm_elementwise (inline PTX) is not supported by tilec"


def _plain_python(v):
    return v + 1


def k_python_call(p):
    x = tl.load(p)
    pair = (x, x + 1)
    tl.static_assert(len(pair) == 2)
    tl.store(p, pair[1] + _plain_python(3))  # Python functions run on compile-time values
    tl.store(p, _plain_python(x))  # MARK-pycall


def test_python_functions_need_compile_time_values():
    from tilec.errors import UnsupportedFeature

    with pytest.raises(UnsupportedFeature) as info:
        build(k_python_call, "*fp32")
    assert info.value.message == (
        "calling the Python function _plain_python with tensor arguments is not supported; "
        "decorate it with @tilec.jit"
    )


def k_libdevice_missing(p):
    from_libdevice = tl.extra.libdevice.no_such_function  # MARK-libdevice
    tl.store(p, from_libdevice(1.0))


def test_unknown_libdevice_function():
    from tilec.errors import UnsupportedFeature

    with pytest.raises(UnsupportedFeature) as info:
        build(k_libdevice_missing, "*fp32")
    assert info.value.message == "libdevice.no_such_function is not supported by tilec"
    assert "tl.extra.libdevice.no_such_function" in str(info.value)
