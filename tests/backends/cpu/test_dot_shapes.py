"""DotOp on the CPU: the register-tiled fp32 kernel and the generic loop, every blocking case,
batched (rank-3) operands, and fp16/bf16/int8/fp64 inputs accumulated exactly in type."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel

NP = {
    T.float32: np.float32,
    T.float16: np.float16,
    T.int8: np.int8,
    T.float64: np.float64,
    T.int32: np.int32,
    T.bfloat16: np.uint16,
}


def _offsets(b, shape):
    """Row-major element offsets of a tile of ``shape`` (i32)."""
    total = None
    stride = 1
    for axis in reversed(range(len(shape))):
        r = b.make_range(0, shape[axis])
        for _ in range(axis):
            r = b.expand_dims(r, 0)
        for _ in range(len(shape) - axis - 1):
            r = b.expand_dims(r, r.type.rank)
        r = b.broadcast(r, shape)
        if stride != 1:
            r = b.binary(O.BinaryKind.MUL, r, b.constant(stride, T.TileType(tuple(shape), T.int32)))
        total = r if total is None else b.binary(O.BinaryKind.ADD, total, r)
        stride *= shape[axis]
    return total


def _dot_kernel(a_shape, b_shape, c_shape, t_in, t_acc) -> Kernel:
    def body(b, pa, pb, pc) -> None:
        def ld(p, shape):
            return b.load(b.addptr(b.splat(p, shape), _offsets(b, shape)))

        r = b.dot(
            ld(pa, a_shape), ld(pb, b_shape), ld(pc, c_shape), input_precision=O.InputPrecision.IEEE
        )
        b.store(b.addptr(b.splat(pc, c_shape), _offsets(b, c_shape)), r)

    specs = [pointer_arg("a", t_in), pointer_arg("b", t_in), pointer_arg("c", t_acc)]
    return Kernel(kernel(specs, body))


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize(
    ("m", "n", "k"),
    [(64, 64, 32), (8, 16, 8), (2, 32, 4), (16, 8, 16), (4, 2, 8), (1, 16, 16), (32, 4, 4)],
)
def test_fp32_blocking(m: int, n: int, k: int) -> None:
    rng = np.random.default_rng()
    a = rng.standard_normal((m, k)).astype(np.float32)
    bm = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = c.astype(np.float64) + a.astype(np.float64) @ bm
    _dot_kernel((m, k), (k, n), (m, n), T.float32, T.float32)(1, a, bm, c)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("t_in", "t_acc"),
    [
        (T.float16, T.float32),
        (T.bfloat16, T.float32),
        (T.int8, T.int32),
        (T.float64, T.float64),
        (T.float16, T.float16),
    ],
)
def test_input_types(t_in, t_acc) -> None:
    m, n, k = 16, 32, 64
    rng = np.random.default_rng()
    if t_in is T.int8:
        a, bm = (rng.integers(-128, 128, s).astype(np.int8) for s in ((m, k), (k, n)))
        c = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
        want = c.astype(np.int64) + a.astype(np.int64) @ bm.astype(np.int64)
        _dot_kernel((m, k), (k, n), (m, n), t_in, t_acc)(1, a, bm, c)
        np.testing.assert_array_equal(c, want)
        return
    af, bf = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    if t_in is T.bfloat16:
        a, bm = _bf16(af), _bf16(bf)
        a64, b64 = _from_bf16(a).astype(np.float64), _from_bf16(bm).astype(np.float64)
    else:
        a, bm = af.astype(NP[t_in]), bf.astype(NP[t_in])
        a64, b64 = a.astype(np.float64), bm.astype(np.float64)
    c = rng.standard_normal((m, n)).astype(NP[t_acc])
    want = c.astype(np.float64) + a64 @ b64
    _dot_kernel((m, k), (k, n), (m, n), t_in, t_acc)(1, a, bm, c)
    tol = 2e-3 if t_acc is T.float16 else 1e-12 if t_acc is T.float64 else 1e-5
    np.testing.assert_allclose(c.astype(np.float64), want, rtol=tol, atol=tol * 10)


def test_batched_rank3() -> None:
    bsz, m, n, k = 4, 8, 16, 4
    rng = np.random.default_rng()
    a = rng.standard_normal((bsz, m, k)).astype(np.float32)
    bm = rng.standard_normal((bsz, k, n)).astype(np.float32)
    c = np.zeros((bsz, m, n), np.float32)
    _dot_kernel((bsz, m, k), (bsz, k, n), (bsz, m, n), T.float32, T.float32)(1, a, bm, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ bm, rtol=1e-5, atol=1e-5)
