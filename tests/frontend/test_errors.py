"""Compile errors name file:line:col, show the source line with a caret, and say what is wrong."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build
from tilec.errors import (
    CompileError,
    ConstexprError,
    TileTypeError,
    UnsupportedFeature,
    UnsupportedSyntax,
)

FILE = __file__


def _line(marker: str) -> int:
    with open(FILE, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if marker in line and "_line(" not in line:
                return i
    raise AssertionError(marker)


def _raises(cls: type, fn, *sigs) -> CompileError:
    with pytest.raises(cls) as info:
        build(fn, *sigs)
    return info.value


def k_undefined(out_ptr):
    tl.store(out_ptr, undefined_thing)  # noqa: F821  # MARK-undefined


def test_undefined_name():
    e = _raises(CompileError, k_undefined, "*fp32")
    line = _line("MARK-undefined")
    assert e.loc.line == line and e.loc.col == 22
    text = str(e)
    assert text.startswith(f"{FILE}:{line}:23: name 'undefined_thing' is not defined\n")
    lines = text.splitlines()
    assert lines[1].strip().startswith("tl.store(out_ptr, undefined_thing)")
    assert lines[2] == "    " + " " * lines[1].strip().index("undefined_thing") + "^" * 15


def k_arange(out_ptr):
    x = tl.arange(0, 10)  # MARK-arange
    tl.store(out_ptr + x, x)


def test_arange_power_of_two():
    e = _raises(TileTypeError, k_arange, "*i32")
    assert e.loc.line == _line("MARK-arange")
    assert e.message == "arange's range must be a power of 2, got 10 (from 0 to 10)"
    assert "^" * len("tl.arange(0, 10)") in str(e)


def k_shape(out_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(out_ptr + a, a + b)  # MARK-shape


def test_shape_mismatch():
    e = _raises(TileTypeError, k_shape, "*i32")
    assert e.loc.line == _line("MARK-shape")
    assert e.message == "shapes [16] and [32] cannot be broadcast together (dimension 0: 16 vs 32)"
    assert str(e).splitlines()[2].strip() == "^" * len("a + b")


def k_constexpr(out_ptr, n):
    x = tl.arange(0, n)  # MARK-constexpr
    tl.store(out_ptr + x, x)


def test_non_constexpr_where_required():
    e = _raises(ConstexprError, k_constexpr, "*i32", "i32")
    assert e.loc.line == _line("MARK-constexpr")
    assert e.message == "arange's end must be a compile-time constant (tl.constexpr)"


def k_bad_load(x, out_ptr):
    v = tl.load(x)  # MARK-badload
    tl.store(out_ptr, v)


def test_wrong_argument_type():
    e = _raises(TileTypeError, k_bad_load, "fp32", "*fp32")
    assert e.loc.line == _line("MARK-badload")
    assert e.message == "load needs a pointer or a tile of pointers, got a fp32 tensor"


def k_unknown_kw(out_ptr):
    tl.store(out_ptr, 1.0, maks=None)  # MARK-kw


def test_unknown_keyword_argument():
    e = _raises(TileTypeError, k_unknown_kw, "*fp32")
    assert e.loc.line == _line("MARK-kw")
    assert e.message == "store(): got an unexpected keyword argument 'maks'"


def k_lambda(out_ptr):
    f = lambda v: v  # noqa: E731  # MARK-lambda
    tl.store(out_ptr, f(1.0))


def k_break(out_ptr, n):
    for _i in range(n):
        break  # MARK-break
    tl.store(out_ptr, 1.0)


def k_try(out_ptr):
    try:  # MARK-try
        tl.store(out_ptr, 1.0)
    finally:
        pass


def k_return_in_loop(out_ptr, n):
    for _i in range(n):
        return  # MARK-loopreturn


@pytest.mark.parametrize(
    ("fn", "marker", "col", "message"),
    [
        (k_lambda, "MARK-lambda", 8, "lambda expressions are not supported in kernels"),
        (
            k_break,
            "MARK-break",
            8,
            "'break' is not supported in kernels; restructure the loop with a condition",
        ),
        (k_try, "MARK-try", 4, "try statements are not supported in kernels"),
        (
            k_return_in_loop,
            "MARK-loopreturn",
            8,
            "Cannot have `return` statements inside `while` or `for` statements in triton "
            "kernels; compute the result in the loop and return after it",
        ),
    ],
)
def test_unsupported_syntax(fn, marker, col, message):
    e = _raises(UnsupportedSyntax, fn, *(["*fp32", "i32"][: fn.__code__.co_argcount]))
    assert (e.loc.line, e.loc.col, e.message) == (_line(marker), col, message)


class _Jit:
    __tilec_jit__ = True

    def __init__(self, fn):
        self.fn = fn


@_Jit
def _recurse(x):
    return _recurse(x)  # MARK-recurse


def k_recursion(out_ptr):
    tl.store(out_ptr, _recurse(1.0))


def test_recursion_is_rejected():
    e = _raises(UnsupportedSyntax, k_recursion, "*fp32")
    assert e.loc.line == _line("MARK-recurse")
    assert e.message == "recursive call to _recurse is not supported in kernels"


def k_returns_value(out_ptr):
    return 1  # MARK-retval


def test_kernel_returning_a_value():
    e = _raises(UnsupportedFeature, k_returns_value, "*fp32")
    assert "kernels cannot return values" in e.message


def k_carried(out_ptr, n):
    acc = 0
    for _i in range(n):
        acc += 1.5  # MARK-carried
    tl.store(out_ptr, acc)


def test_loop_carried_type_change():
    e = _raises(TileTypeError, k_carried, "*fp32", "i32")
    assert e.message == (
        "loop-carried 'acc' has type i32 before the loop but fp32 after an "
        "iteration; give it its final type before the loop"
    )


def k_static_assert(out_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")  # MARK-static


def test_static_assert_message():
    e = _raises(CompileError, k_static_assert, "*fp32", 48)
    assert e.loc.line == _line("MARK-static")
    assert e.message == "static_assert failed: BLOCK must be a multiple of 32"
    build(k_static_assert, "*fp32", 64)


def k_nested_error(out_ptr):
    tl.store(out_ptr, _bad_helper(1.0))


@_Jit
def _bad_helper(x):
    return x + tl.arange(0, 3)  # MARK-nested


def test_errors_in_callees_point_into_the_callee():
    e = _raises(TileTypeError, k_nested_error, "*fp32")
    assert e.loc.line == _line("MARK-nested")


def k_library_misuse(p):
    x = tl.load(p + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(p, tl.sort(x, dim=0))  # MARK-library


def test_errors_in_tl_library_code_point_at_the_call():
    e = _raises(CompileError, k_library_misuse, "*fp32")
    assert e.loc.file == FILE and e.loc.line == _line("MARK-library")
    assert e.message == "static_assert failed: sort supports only the last dimension"
