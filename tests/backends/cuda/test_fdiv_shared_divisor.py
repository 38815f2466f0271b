"""Grouped fp32 division where quotients share a divisor value (a row sum broadcast along the
row, as in softmax and attention): fdiv.py computes that divisor's range and reciprocal once.
Run on this host through LLVM's JIT with the model reciprocal of test_fdiv_exact.py and
compared bit for bit with NumPy."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from llvmlite import ir
from test_fdiv_exact import _check, _floats, _reciprocal_off_by_an_ulp

from support.native import compile_native
from tilec.backends.cuda import fdiv
from tilec.backends.cuda import intrinsics as intr

F32, I32 = ir.FloatType(), ir.IntType(32)
N = fdiv.GROUP
ROWS = 2  # divisor i // (N // ROWS) for quotient i: two rows per group


@pytest.fixture(scope="module")
def divide_rows():  # type: ignore[no-untyped-def]
    """(x*, y*, out*) -> None: out[i] = x[i] / y[i // (N // ROWS)], each y loaded once."""
    patch = pytest.MonkeyPatch()
    patch.setattr(intr, "asm", _reciprocal_off_by_an_ulp)
    try:
        module = ir.Module("fdiv_rows")
        ptr = ir.PointerType()
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, ptr]), "divide_rows")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        xs, ys, out = fn.args

        def load(p: ir.Value, i: int) -> ir.Value:
            return b.load(b.gep(p, [ir.Constant(I32, i)], source_etype=F32), typ=F32)

        dens = [load(ys, r) for r in range(ROWS)]
        pairs = [(load(xs, i), dens[i // (N // ROWS)]) for i in range(N)]
        for i, q in enumerate(fdiv.divide(b, pairs)):
            b.store(q, b.gep(out, [ir.Constant(I32, i)], source_etype=F32))
        b.ret_void()
    finally:
        patch.undo()
    text = str(module)
    # one reciprocal (the model's 1 / y) per divisor, not per quotient
    assert text.count("fdiv float 0x3ff0000000000000") == ROWS
    engine = compile_native(text)
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    fn_ptr = proto(engine.get_function_address("divide_rows"))

    def run(x: np.ndarray, y: np.ndarray, o: np.ndarray) -> None:
        fn_ptr(x.ctypes.data, np.ascontiguousarray(y[:: N // ROWS]).ctypes.data, o.ctypes.data)

    yield run
    del engine


def _rows(y: np.ndarray) -> np.ndarray:
    """One divisor per half group, repeated over its quotients."""
    return np.repeat(y.reshape(-1, ROWS), N // ROWS, axis=1).reshape(-1)


def test_row_sums(divide_rows) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(6)
    num = np.exp(rng.normal(size=(4096, N)) * 8).astype(np.float32)
    num[rng.random(num.shape) < 0.2] = 0.0
    num[rng.random(num.shape) < 0.05] *= -1
    den = num.reshape(-1, ROWS, N // ROWS).sum(axis=2).reshape(-1)
    _check(divide_rows, num.reshape(-1), _rows(den))


def test_random_operands_and_range_edges(divide_rows) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    n = 4096 * N
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    _check(divide_rows, bits, _rows(bits[: n // (N // ROWS)]))
    for xr, yr in [((-96, 127), (-96, 96)), ((-100, -94), (-5, 5)), ((120, 127), (-96, -90))]:
        _check(divide_rows, _floats(rng, n, *xr), _rows(_floats(rng, n // (N // ROWS), *yr)))
