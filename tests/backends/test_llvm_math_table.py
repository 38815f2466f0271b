"""llvm/math_table.py: one row per tl math function, and every entry a target names is one its
backend can emit (a function is missing on a target only where its entry says so)."""

from __future__ import annotations

import pytest
from llvmlite import ir

from tilec.backends.cpu.mathops import emit_math
from tilec.backends.cuda.math_functions import apply
from tilec.backends.llvm import types as T
from tilec.backends.llvm.math_table import MATH, Via
from tilec.errors import UnsupportedFeature
from tilec.ir import types as IT
from tilec.ir.ops import MATH_FUNCTIONS


def _emit(emit, fn: str, t: ir.Type) -> str:  # type: ignore[no-untyped-def]
    module = ir.Module()
    f = ir.Function(module, ir.FunctionType(T.void, []), "f")
    b = ir.IRBuilder(f.append_basic_block())
    args = [ir.Argument(f, t, f"a{i}") for i in range(MATH_FUNCTIONS[fn].arity)]
    if fn == "ldexp":
        args[1] = ir.Argument(f, T.i32, "n")
    emit(b, args)
    b.ret_void()
    return str(module)


def test_a_row_per_math_function() -> None:
    assert set(MATH) == set(MATH_FUNCTIONS)
    for fn, spec in MATH_FUNCTIONS.items():
        if spec.predicate or not spec.floats:
            assert MATH[fn].cpu == MATH[fn].cuda and MATH[fn].cpu.via is Via.EXACT, fn


def test_only_directed_rounding_division_is_missing_on_the_cpu() -> None:
    missing = {fn for fn, row in MATH.items() if row.cpu is None}
    assert missing == {"div_rz", "div_rd", "div_ru"}
    assert all(row.cuda is not None for row in MATH.values())


FLOATS = [fn for fn, spec in MATH_FUNCTIONS.items() if spec.floats]


@pytest.mark.parametrize("fn", FLOATS)
@pytest.mark.parametrize("elem", [IT.float32, IT.float64], ids=["fp32", "fp64"])
def test_cpu_entry_is_emitted(fn: str, elem: IT.ScalarType) -> None:
    emit = lambda b, xs: emit_math(b, fn, elem, xs)  # noqa: E731
    if MATH[fn].cpu is None:
        with pytest.raises(UnsupportedFeature, match=fn):
            _emit(emit, fn, T.storage_type(elem))
        return
    assert "ret void" in _emit(emit, fn, T.storage_type(elem))


@pytest.mark.parametrize("fn", FLOATS)
def test_cuda_entry_is_emitted(fn: str) -> None:
    emit = lambda b, xs: apply(b, fn, xs, IT.float32, fast=True)  # noqa: E731
    text = _emit(emit, fn, T.f32)
    entry = MATH[fn].cuda
    assert entry is not None
    if entry.via is Via.LIBRARY:
        assert f'@"{entry.f32}"(' in text
