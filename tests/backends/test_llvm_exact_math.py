"""llvm/exact_math.py, the integer functions and float class tests every target spells the same
way, run on the host through llvmlite's JIT against Python."""

from __future__ import annotations

import ctypes
import math
import struct

import pytest

from support.native import native_function
from tilec.backends.llvm import exact_math as E
from tilec.backends.llvm.types import f32, i32
from tilec.ir.types import int32, uint32

VALUES = [0, 1, -1, 7, 12, -8, 0x7FFFFFFF, -0x80000000, 0x12345678, -0x1234567]


def _u(v: int) -> int:
    return v & 0xFFFFFFFF


def _s(v: int) -> int:
    v = _u(v)
    return v - (1 << 32) if v >> 31 else v


REFERENCE = {
    "neg": lambda x, y, s: -x,
    "not": lambda x, y, s: ~x,
    "abs": lambda x, y, s: abs(x) if s else x,
    "mulhi": lambda x, y, s: ((x if s else _u(x)) * (y if s else _u(y))) >> 32,
    "umulhi": lambda x, y, s: (_u(x) * _u(y)) >> 32,
    "popc": lambda x, y, s: bin(_u(x)).count("1"),
    "brev": lambda x, y, s: int(f"{_u(x):032b}"[::-1], 2),
    "clz": lambda x, y, s: 32 - _u(x).bit_length(),
    "ffs": lambda x, y, s: (_u(x) & -_u(x)).bit_length(),
}


@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize("fn", sorted(REFERENCE))
def test_integer_functions(fn: str, signed: bool) -> None:
    elem = int32 if signed else uint32
    engine, addr = native_function(lambda b, a: E.integer(b, fn, a, elem), [i32, i32], i32)
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_int32)(addr)
    for x in VALUES:
        y = VALUES[(VALUES.index(x) + 3) % len(VALUES)]
        xs = x if signed else _u(x)
        ys = y if signed else _u(y)
        assert f(x, y) == _s(REFERENCE[fn](xs, ys, signed)), (fn, x, y)
    del engine


@pytest.mark.parametrize("fn", E.PREDICATES)
def test_float_class(fn: str) -> None:
    engine, addr = native_function(lambda b, a: b.zext(E.predicate(b, fn, a[0]), i32), [f32], i32)
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_float)(addr)
    want = {
        "isnan": math.isnan,
        "isinf": math.isinf,
        "isfinite": math.isfinite,
        "signbit": lambda v: struct.pack("<f", v)[3] >> 7 == 1,
    }[fn]
    for v in (0.0, -0.0, 1.5, -2.0, 1e-45, math.inf, -math.inf, math.nan, -math.nan):
        assert f(v) == int(want(v)), (fn, v)
    del engine
