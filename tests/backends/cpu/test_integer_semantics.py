"""Integer edge cases are defined, never traps or poison: x/0, INT_MIN/-1, oversized shifts,
and float → int conversions that saturate (NaN → 0) as NVIDIA GPUs do."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.ir import ops as O
from tilec.ir import types as T

from .support import elementwise_kernel, run_elementwise

INT_T = {np.int32: T.int32, np.int64: T.int64, np.uint32: T.uint32, np.int8: T.int8}


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.int8])
def test_division_by_zero_and_overflow(dtype) -> None:
    t = INT_T[dtype]
    info = np.iinfo(dtype)
    x = np.array(
        [7, -7 if info.min < 0 else 70, 0, info.min, info.max, 5, info.min, 9], dtype=dtype
    )
    y = np.array(
        [0, 0, 0, -1 if info.min < 0 else 1, 0, 2, 1, -3 if info.min < 0 else 3], dtype=dtype
    )
    div = run_elementwise(
        elementwise_kernel(lambda b, p, q: b.binary(O.BinaryKind.DIV, p, q), 2, t, t),
        x,
        y,
        out_dtype=dtype,
    )
    rem = run_elementwise(
        elementwise_kernel(lambda b, p, q: b.binary(O.BinaryKind.REM, p, q), 2, t, t),
        x,
        y,
        out_dtype=dtype,
    )
    for i, (a, d) in enumerate(zip(x.tolist(), y.tolist())):
        if d == 0:
            assert div[i] == dtype(-1) if info.min < 0 else div[i] == info.max
            assert rem[i] == x[i]
        elif info.min < 0 and a == info.min and d == -1:
            assert div[i] == info.min and rem[i] == 0
        else:
            q = abs(a) // abs(d) * (1 if (a >= 0) == (d > 0) else -1)  # C: truncate toward 0
            assert div[i] == q and rem[i] == a - q * d, (a, d, div[i], rem[i])


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_shifts_past_the_width(dtype) -> None:
    t = INT_T[dtype]
    bits = np.iinfo(dtype).bits
    x = np.array([-5 if np.iinfo(dtype).min < 0 else 5, 3, 1, 12345] * 3, dtype=dtype)
    s = np.array(
        [
            0,
            1,
            bits - 1,
            bits,
            bits + 3,
            200 % (1 << min(bits, 16)),
            2,
            5,
            31,
            63 % bits,
            bits * 2,
            7,
        ],
        dtype=dtype,
    )
    shl = run_elementwise(
        elementwise_kernel(lambda b, p, q: b.binary(O.BinaryKind.SHL, p, q), 2, t, t),
        x,
        s,
        out_dtype=dtype,
    )
    shr = run_elementwise(
        elementwise_kernel(lambda b, p, q: b.binary(O.BinaryKind.SHR, p, q), 2, t, t),
        x,
        s,
        out_dtype=dtype,
    )
    mask = (1 << bits) - 1
    for i, (a, k) in enumerate(zip(x.tolist(), s.tolist())):
        want_shl = 0 if k >= bits else (a << k) & mask
        want_shr = (a >> min(k, bits - 1)) if a < 0 else (0 if k >= bits else a >> k)
        assert int(shl[i]) & mask == want_shl & mask, (a, k)
        assert int(shr[i]) & mask == want_shr & mask, (a, k)


@pytest.mark.parametrize(
    ("dst", "np_dst"),
    [(T.int32, np.int32), (T.uint8, np.uint8), (T.int64, np.int64), (T.int8, np.int8)],
)
def test_float_to_int_saturates(dst, np_dst) -> None:
    info = np.iinfo(np_dst)
    x = np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            1e30,
            -1e30,
            2.9,
            -2.9,
            0.5,
            float(info.max) + 10,
            float(info.min) - 10,
            100.0,
        ],
        np.float32,
    )
    got = run_elementwise(
        elementwise_kernel(lambda b, v: b.cast(v, T.with_element(v.type, dst)), 1, T.float32, dst),
        x,
        out_dtype=np_dst,
    )
    want = [
        0 if np.isnan(v) else info.max if v >= info.max else info.min if v <= info.min else int(v)
        for v in x.tolist()
    ]
    assert [int(v) for v in got] == want, list(zip(x, got))


def test_rounding_to_half_and_bfloat16() -> None:
    rng = np.random.default_rng()
    x = np.concatenate([rng.standard_normal(2000) * 100, [65519.0, 65520.0, 1e-8, np.nan]]).astype(
        np.float32
    )
    half = run_elementwise(
        elementwise_kernel(
            lambda b, v: b.cast(v, T.with_element(v.type, T.float16)), 1, T.float32, T.float16
        ),
        x,
        out_dtype=np.float16,
    )
    np.testing.assert_array_equal(half, x.astype(np.float16))
    bf = run_elementwise(
        elementwise_kernel(
            lambda b, v: b.cast(v, T.with_element(v.type, T.bfloat16)), 1, T.float32, T.bfloat16
        ),
        x,
        out_dtype=np.uint16,
    )
    bits = x.view(np.uint32).astype(np.uint64)
    want = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    ok = ~np.isnan(x)
    np.testing.assert_array_equal(bf[ok], want[ok])
    assert np.isnan((bf[~ok].astype(np.uint32) << 16).view(np.float32)).all()


def test_rtz_rounding() -> None:
    x = np.array([1.0 + 2**-12, -(1.0 + 2**-12), 65520.0, 3.0e-8], np.float32)
    got = run_elementwise(
        elementwise_kernel(
            lambda b, v: b.cast(v, T.with_element(v.type, T.float16), rounding=O.Rounding.RTZ),
            1,
            T.float32,
            T.float16,
        ),
        x,
        out_dtype=np.float16,
    )
    want = np.array([1.0, -1.0, 65504.0, 0.0], np.float16)
    np.testing.assert_array_equal(got, want)
