"""llvm/scalar.py's integer resize, cast to bool and single-rounding narrowing: the pieces of a
cast both backends share, run on the host through llvmlite's JIT."""

from __future__ import annotations

import ctypes
import math
import re

import numpy as np
import pytest
from llvmlite import ir

from support.native import native_function
from tilec.backends.llvm import scalar as S
from tilec.backends.llvm import types as T
from tilec.backends.llvm.types import f32, i8, i32, i64
from tilec.ir.ops import Rounding


def _jit(build, arg: ir.Type, ret: ir.Type):  # type: ignore[no-untyped-def]
    """A one-argument function: ``build(builder, argument)``."""
    return native_function(lambda b, args: build(b, args[0]), [arg], ret)


def _wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize(("src", "dst"), [(i8, i64), (i64, i8), (i32, i32)])
def test_int_resize(src: ir.IntType, dst: ir.IntType, signed: bool) -> None:
    engine, addr = _jit(lambda b, x: S.int_resize(b, x, signed, dst), src, dst)
    ct = {8: ctypes.c_int8, 32: ctypes.c_int32, 64: ctypes.c_int64}
    f = ctypes.CFUNCTYPE(ct[dst.width], ct[src.width])(addr)
    for v in (0, 1, -1, 127, -128, 0x7FFFFFFF, -0x80000000, 0x123456789):
        x = _wrap(v, src.width, True)
        want = _wrap(x if signed else x & ((1 << src.width) - 1), dst.width, True)
        assert f(x) == want, (v, f(x), want)
    del engine


def test_is_nonzero() -> None:
    engine, addr = _jit(lambda b, x: b.zext(S.is_nonzero(b, x, True), i32), f32, i32)
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_float)(addr)
    assert [f(v) for v in (0.0, -0.0, 1e-45, float("nan"), -2.0)] == [0, 0, 1, 1, 1]
    engine2, addr2 = _jit(lambda b, x: b.zext(S.is_nonzero(b, x, False), i32), i8, i32)
    g = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int8)(addr2)
    assert [g(v) for v in (0, 1, -128)] == [0, 1, 1]
    del engine, engine2


@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_narrow_f64_to_f32(rounding: str) -> None:
    mode = Rounding(rounding)
    engine, addr = _jit(lambda b, x: S.narrow(b, x, T.f32, mode), T.f64, T.f32)
    f = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_double)(addr)
    tiny = 2.0**-30  # below fp32's half ulp of 1.0
    assert f(1.0 + tiny) == 1.0 and f(-(1.0 + tiny)) == -1.0
    up = 1.0 + 2.0**-23 - tiny  # nearest is 1 + ulp; toward zero 1.0
    assert f(up) == (1.0 if rounding == "rtz" else 1.0 + 2.0**-23)
    big = 3.5e38  # past fp32's largest finite: nearest-even overflows, toward zero saturates
    assert f(big) == (float(np.float32(3.4028235e38)) if rounding == "rtz" else math.inf)
    del engine


def test_narrow_f64_to_16_bits_rounds_once() -> None:
    module = ir.Module(name="m")
    fn = ir.Function(module, ir.FunctionType(T.f16, [T.f64]), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(S.narrow(b, fn.args[0], T.f16))
    text = str(module)
    assert re.search(r"fptrunc double [^\n]* to float", text)  # rounded to odd in fp32 first
    assert re.search(r"fptrunc float [^\n]* to half", text)
    assert not re.search(r"fptrunc double [^\n]* to half", text)
