"""Grouped fp32 division (backends/cuda/fdiv.py) gives the bits of IEEE division.

The IR fdiv.divide builds is run on this host through LLVM's JIT: the same fast path, range
check, zero-sign fix and exact arm the GPU runs, with the hardware's approximate reciprocal
(``rcp.approx.ftz.f32``, inline PTX) replaced by 1/y off by -1, 0 or +1 ulp. Every quotient is
compared bit for bit with NumPy's float32 division: random bit patterns (subnormals,
infinities, NaN), operands at the edges of the fast path's range, zeros of both signs, and
quotients next to rounding ties.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from llvmlite import ir

from support.native import compile_native
from tilec.backends.cuda import fdiv
from tilec.backends.cuda import intrinsics as intr
from tilec.backends.llvm import intrinsics as llvm_intr

F32, I32 = ir.FloatType(), ir.IntType(32)
N = fdiv.GROUP


def _reciprocal_off_by_an_ulp(
    b: ir.IRBuilder, ret: ir.Type, text: str, constraints: str, args: list[ir.Value], **_: object
) -> ir.Value:
    """rcp.approx.ftz.f32 as a model: subnormal operands and results flush to zero, and the
    result is off by -1, 0 or +1 ulp (chosen by the operand's bits)."""
    assert text.startswith("rcp.approx.ftz.f32"), text
    (y,) = args
    tiny = ir.Constant(F32, 2.0**-126)
    y = b.select(b.fcmp_ordered("<", _fabs(b, y), tiny), _copysign(b, 0.0, y), y)
    exact = b.fdiv(ir.Constant(F32, 1.0), y)
    exact = b.select(b.fcmp_ordered("<", _fabs(b, exact), tiny), _copysign(b, 0.0, exact), exact)
    finite = b.fcmp_ordered("<", _fabs(b, exact), ir.Constant(F32, float("inf")))
    nonzero = b.fcmp_ordered("!=", exact, ir.Constant(F32, 0.0))
    c = lambda v: ir.Constant(I32, v)  # noqa: E731
    wobble = b.sub(b.urem(b.lshr(b.bitcast(y, I32), c(3)), c(3)), c(1))
    off = b.bitcast(b.add(b.bitcast(exact, I32), wobble), F32)
    return b.select(b.and_(finite, nonzero), off, exact)


def _fabs(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return llvm_intr.call(b, "fabs", [x])


def _copysign(b: ir.IRBuilder, magnitude: float, sign: ir.Value) -> ir.Value:
    return llvm_intr.call(b, "copysign", [ir.Constant(F32, magnitude), sign])


@pytest.fixture(scope="module")
def divide_group():  # type: ignore[no-untyped-def]
    """A host function dividing N float32 pairs as one group: (x*, y*, out*) -> None."""
    patch = pytest.MonkeyPatch()
    patch.setattr(intr, "asm", _reciprocal_off_by_an_ulp)
    try:
        module = ir.Module("fdiv_group")
        ptr = ir.PointerType()
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, ptr]), "divide_group")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        xs, ys, out = fn.args

        def load(p: ir.Value, i: int) -> ir.Value:
            return b.load(b.gep(p, [ir.Constant(I32, i)], source_etype=F32), typ=F32)

        pairs = [(load(xs, i), load(ys, i)) for i in range(N)]
        for i, q in enumerate(fdiv.divide(b, pairs)):
            b.store(q, b.gep(out, [ir.Constant(I32, i)], source_etype=F32))
        b.ret_void()
    finally:
        patch.undo()
    engine = compile_native(module)
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    fn_ptr = proto(engine.get_function_address("divide_group"))
    yield lambda x, y, o: fn_ptr(x.ctypes.data, y.ctypes.data, o.ctypes.data)
    del engine


def _check(divide_group, x: np.ndarray, y: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    x = np.ascontiguousarray(x, np.float32).reshape(-1, N)
    y = np.ascontiguousarray(y, np.float32).reshape(-1, N)
    got = np.full_like(x, np.nan)
    for i in range(x.shape[0]):
        row = got[i]
        divide_group(x[i], y[i], row)
    with np.errstate(all="ignore"):
        want = x / y
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    bad = np.argwhere(~same)
    assert not bad.size, [
        (float(x[i, j]), float(y[i, j]), float(got[i, j]), float(want[i, j])) for i, j in bad[:5]
    ]


def _floats(rng: np.random.Generator, n: int, lo: int, hi: int) -> np.ndarray:
    """float32 values with exponents in [lo, hi] and random significands and signs."""
    bits = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    bits |= (rng.integers(lo, hi + 1, n) + 127).astype(np.uint32) << 23
    bits |= rng.integers(0, 2, n, dtype=np.uint32) << 31
    return bits.view(np.float32)


def test_random_bit_patterns(divide_group) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1 << 32, 4096 * N, dtype=np.uint64).astype(np.uint32).view(np.float32)
    y = rng.integers(0, 1 << 32, 4096 * N, dtype=np.uint64).astype(np.uint32).view(np.float32)
    _check(divide_group, x, y)


def test_fast_path_range_and_its_edges(divide_group) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2)
    n = 8192 * N
    for xr, yr in [((-96, 127), (-96, 96)), ((-96, -90), (90, 96)), ((120, 127), (-96, -90)),
                   ((-100, -94), (-5, 5)), ((-5, 5), (94, 100)), ((122, 127), (-5, 0))]:  # fmt: skip
        _check(divide_group, _floats(rng, n, *xr), _floats(rng, n, *yr))


def test_one_divisor_per_group_as_in_softmax(divide_group) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    num = np.exp(rng.normal(size=(8192, N)) * 8).astype(np.float32)
    num[rng.random(num.shape) < 0.2] = 0.0  # masked lanes: exp(-inf)
    num[rng.random(num.shape) < 0.05] *= -1  # and -0.0 among them
    den = np.repeat(num.sum(axis=1, keepdims=True), N, axis=1)
    _check(divide_group, num, den)


def test_quotients_next_to_ties(divide_group) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    n = 8192 * N
    y = _floats(rng, n, -20, 20)
    q = _floats(rng, n, -30, 30)
    # x = y * q rounded: x / y lies within an ulp of q, often next to a rounding boundary
    x = (y.astype(np.float64) * q.astype(np.float64)).astype(np.float32)
    _check(divide_group, x, y)
    ones = np.float32(2.0) - np.float32(2**-23)  # a divisor with every significand bit set
    _check(divide_group, x, np.full(n, ones, np.float32) * np.sign(y))


def test_tiny_and_huge_operands(divide_group) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    n = 8192 * N
    for xr, yr in [((-126, -97), (-30, -4)), ((-126, -110), (-126, -100)), ((100, 127), (97, 127)),
                   ((-20, 20), (97, 127)), ((-126, -97), (-126, 127)), ((125, 127), (-3, 2))]:  # fmt: skip
        _check(divide_group, _floats(rng, n, *xr), _floats(rng, n, *yr))
