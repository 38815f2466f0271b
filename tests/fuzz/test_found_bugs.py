"""Wrong results the differential fuzzer found, each reduced to a small kernel (the fuzzer's
reproducer, trimmed) and checked against the value Triton gives."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl

torch = pytest.importorskip("torch")  # bf16 buffers


@tilec.jit
def _cumsum_bf16(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)  # bf16
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0))


@tilec.jit
def _cumprod_bf16(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.cumprod(tl.load(x_ptr + offs), axis=0))


def test_cumsum_of_bf16_accumulates_in_fp32() -> None:
    # Triton's cumsum promotes bf16 to fp32 first: 1 + 2**-9 is kept, bf16 would round it to 1
    # (found as (x + 1).to(tl.bfloat16) then tl.cumsum; seed 7, kernel 153)
    x = torch.tensor([1.0, 2.0**-9, 2.0**-9, 2.0**-9], dtype=torch.bfloat16)
    out = np.full(4, np.nan, np.float32)
    _cumsum_bf16[(1,)](x, out, N=4)
    assert out.tolist() == [1.0, 1.0 + 2.0**-9, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-9]


def test_cumprod_of_bf16_multiplies_in_fp32() -> None:
    x = torch.tensor([1.0 + 2.0**-7, 1.0 + 2.0**-7], dtype=torch.bfloat16)
    out = np.full(2, np.nan, np.float32)
    _cumprod_bf16[(1,)](x, out, N=2)
    a = np.float32(1.0 + 2.0**-7)
    assert out.tolist() == [float(a), float(a * a)]  # bf16 would round a * a to 1 + 2**-6


@tilec.jit
def _store_wider_value(out_ptr):
    offs = tl.arange(0, 2)[None, :]  # pointer tile (1, 2)
    v = tl.arange(0, 2)[:, None] * 10 + offs  # value tile (2, 2)
    tl.store(out_ptr + offs, v)


@tilec.jit
def _atomic_wider_value(x_ptr, out_ptr):
    offs = tl.arange(0, 2)[None, :]
    v = tl.load(x_ptr + tl.arange(0, 4)[:, None]) + offs  # (4, 2)
    tl.atomic_add(out_ptr + offs, v)


@tilec.jit
def _store_wider_mask(out_ptr):
    offs = tl.arange(0, 2)[None, :]
    tl.store(out_ptr + offs, offs, mask=tl.arange(0, 2)[:, None] < 1)


@tilec.jit
def _store_value_broadcasts(out_ptr):
    offs = tl.arange(0, 2)[:, None] * 2 + tl.arange(0, 2)[None, :]  # (2, 2)
    tl.store(out_ptr + offs, tl.arange(0, 2)[None, :] + 5, mask=tl.arange(0, 2)[None, :] < 2)


@tilec.jit
def _load_other_widens_pointers(x_ptr, out_ptr):
    p = x_ptr + tl.arange(0, 2)[None, :]  # (1, 2)
    v = tl.load(p, mask=tl.arange(0, 2)[None, :] < 1, other=tl.zeros((4, 2), tl.int32) - 1)
    tl.store(out_ptr + tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :], v)


@pytest.mark.parametrize(
    "kernel, args",
    [
        (_store_wider_value, lambda: (np.zeros(2, np.int32),)),
        (_atomic_wider_value, lambda: (np.ones(4, np.int32), np.zeros(2, np.int32))),
        (_store_wider_mask, lambda: (np.zeros(2, np.int32),)),
    ],
)
def test_store_never_widens_the_pointers(kernel, args) -> None:
    # Triton broadcasts only the value and mask to the pointer shape; widening the pointers
    # instead wrote several values to one address (tilec stored [10, 11] / added [4, 8])
    with pytest.raises(tilec.errors.TileTypeError, match="broadcast") as info:
        kernel[(1,)](*args())
    assert "test_found_bugs.py:" in str(info.value) and "^" in str(info.value)


def test_store_value_and_mask_still_broadcast_to_the_pointers() -> None:
    out = np.full(4, -1, np.int32)
    _store_value_broadcasts[(1,)](out)
    assert out.tolist() == [5, 6, 5, 6]


def test_load_other_still_widens_the_pointers() -> None:
    # Triton's load broadcasts the pointers (and mask) to a wider ``other``
    out = np.full(8, 7, np.int32)
    _load_other_widens_pointers[(1,)](np.array([4, 9], np.int32), out)
    assert out.tolist() == [4, -1] * 4


@tilec.jit
def _sin_cos(x_ptr, sin_ptr, cos_ptr, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(sin_ptr + offs, tl.sin(x))
    tl.store(cos_ptr + offs, tl.cos(x))


def _ulp_error(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / np.maximum(spacing, 2.0**-149)


def test_fp32_sin_cos_over_the_whole_range() -> None:
    # the reduction was good to about 1e5 only: from 1e8 on cos gave 0.62161 for every input
    # (found as (x0 + x1).to(tl.float32) of int32 inputs, then tl.cos; seed 5, kernel 120)
    rng = np.random.default_rng()
    n = 1 << 14
    big = np.exp(rng.uniform(np.log(1e5), np.log(3.4e38), n)) * rng.choice([-1.0, 1.0], n)
    near = np.floor(rng.uniform(1.0, 2e7, n // 4)) * (np.pi / 2)  # near multiples of pi/2
    fixed = [
        1e8,
        -2076497920.0,
        3e38,
        3.4028235e38,
        2.0**20,
        -(2.0**20),
        1048575.9,
        16367173 * 2.0**72,
    ]
    x = np.concatenate([
        rng.uniform(-10, 10, n), rng.uniform(-2e6, 2e6, n), big,
        rng.integers(-(2**31), 2**31, n).astype(np.float64), near, np.float32(near) * 1.0000001,
        fixed, np.zeros(256 - (len(fixed) + 4 * n + 2 * (n // 4)) % 256),
    ]).astype(np.float32)  # fmt: skip
    s, c = np.full_like(x, np.nan), np.full_like(x, np.nan)
    _sin_cos[(len(x) // 256,)](x, s, c, N=256)
    xd = x.astype(np.float64)
    for got, want in ((s, np.sin(xd)), (c, np.cos(xd))):
        err = _ulp_error(got, want)
        assert err.max() <= 3, (x[err.argmax()], got[err.argmax()], want[err.argmax()])
    assert s[-1] == 0.0 and c[-1] == 1.0


@tilec.jit
def _maximum_bf16_then_add(a_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 2)
    x = tl.load(a_ptr + offs)  # bf16
    y = tl.load(b_ptr + offs)  # bf16
    tl.store(out_ptr + offs, tl.maximum(x, x) + y)


@tilec.jit
def _maximum_int8_and_zero(a_ptr, out_ptr):
    offs = tl.arange(0, 2)
    x = tl.load(a_ptr + offs)  # int8
    tl.store(out_ptr + offs, tl.maximum(x, 0) * 2)
    tl.store(out_ptr + 2 + offs, tl.minimum(0, x) - 100)


@tilec.jit
def _clamp_bf16(a_ptr, out_ptr):
    offs = tl.arange(0, 2)
    x = tl.load(a_ptr + offs)  # bf16
    tl.store(out_ptr + offs, tl.clamp(x, x - 1, x + 1) + 2.0**-20)


def test_maximum_of_bf16_is_fp32() -> None:
    # Triton promotes bf16 operands of minimum/maximum to fp32: 1 + 2**-9 is then kept
    a = torch.ones(2, dtype=torch.bfloat16)
    b = torch.full((2,), 2.0**-9, dtype=torch.bfloat16)
    out = np.full(2, np.nan, np.float32)
    _maximum_bf16_then_add[(1,)](a, b, out)
    assert out.tolist() == [1.0 + 2.0**-9] * 2


def test_maximum_makes_a_python_number_an_int32_tensor() -> None:
    # maximum(int8, 0) is int32 in Triton (0 becomes an int32 tensor): 100 * 2 does not wrap
    out = np.full(4, -1, np.int32)
    _maximum_int8_and_zero[(1,)](np.array([100, -100], np.int8), out)
    assert out.tolist() == [200, 0, -100, -200]


def test_clamp_of_bf16_is_fp32() -> None:
    out = np.full(2, np.nan, np.float32)
    _clamp_bf16[(1,)](torch.tensor([0.5, 3.0], dtype=torch.bfloat16), out)
    assert out.tolist() == [0.5 + 2.0**-20, 3.0 + 2.0**-20]  # bf16 would round the 2**-20 away


@tilec.jit
def _max_all(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@tilec.jit
def _row_max_min(x_ptr, out_ptr, N: tl.constexpr):
    rows = tl.arange(0, 4)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    tl.store(out_ptr + tl.arange(0, 4), tl.max(x, axis=1))
    tl.store(out_ptr + 4 + tl.arange(0, 4), tl.min(x, axis=1))
    tl.store(out_ptr + 8 + tl.arange(0, 4), tl.reduce(x, 1, _max_all))


@pytest.mark.parametrize("n", [2, 64])
def test_max_of_a_row_of_nans_is_nan(n: int) -> None:
    # Triton's tl.max combines the elements with maxnum, no -inf start: NaNs are skipped but a
    # row of NaNs gives NaN (tilec gave -inf; seed 7, kernel 3320)
    x = np.random.default_rng().uniform(-5, 5, (4, n)).astype(np.float32)
    x[0] = np.nan
    x[1, 0] = np.nan
    x[2] = -np.inf
    out = np.full(12, 7.0, np.float32)
    _row_max_min[(1,)](x, out, N=n)
    nan_skipped = [np.nan, np.nanmax(x[1]), -np.inf, np.max(x[3])]
    np.testing.assert_array_equal(out[:4], nan_skipped)
    np.testing.assert_array_equal(out[4:8], [np.nan, np.nanmin(x[1]), -np.inf, np.min(x[3])])
    np.testing.assert_array_equal(out[8:], [np.nan, np.nan, -np.inf, np.max(x[3])])


@tilec.jit
def _load_mask_widens_pointers(x_ptr, out_ptr):
    cols = tl.arange(0, 2)[None, :]  # pointer tile (1, 2)
    rows = tl.arange(0, 4)[:, None]
    v = tl.load(x_ptr + cols, mask=rows < 3, other=-1)  # (4, 2), as in Triton
    tl.store(out_ptr + rows * 2 + cols, v)


def test_load_mask_still_widens_the_pointers() -> None:
    out = np.full(8, 7, np.int32)
    _load_mask_widens_pointers[(1,)](np.array([4, 9], np.int32), out)
    assert out.tolist() == [4, 9, 4, 9, 4, 9, -1, -1]


@tilec.jit
def _int32_via_uint64_to_fp32(x_ptr, out_ptr):
    v = tl.load(x_ptr) - tl.arange(0, 4)  # a scalar spread over a small vector
    tl.store(out_ptr + tl.arange(0, 4), v.to(tl.uint64).to(tl.float32))


def test_a_negative_int32_widened_to_uint64_converts_as_the_uint64() -> None:
    # -5 widens to 2**64 - 5 (sign extension), about 1.8e19 as fp32; LLVM's SLP vectorizer
    # turned uitofp(sext i32) into a conversion of the 32-bit value (4.29e9) (seed 81, kernel 1331)
    out = np.full(4, np.nan, np.float32)
    _int32_via_uint64_to_fp32[(1,)](np.array([-5], np.int32), out)
    want = [float(np.float32(float(2**64 - k))) for k in (5, 6, 7, 8)]
    assert out.tolist() == want


@tilec.jit
def _neg_abs(x_ptr, neg_ptr, abs_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(neg_ptr + offs, -x)
    tl.store(abs_ptr + offs, tl.abs(x))
    s = tl.load(x_ptr)  # the scalar path too
    tl.store(neg_ptr + N, -s)
    tl.store(abs_ptr + N, tl.abs(s))


# signalling NaNs (quiet bit clear), quiet NaNs with payloads, zeros, subnormals, infinities,
# the largest and smallest normals, ordinary numbers
_SIGN_BIT_INPUTS = {
    "float16": [0x7D00, 0xFD01, 0x7C01, 0x7E00, 0xFE55, 0x7FFF, 0xFFFF, 0x8000, 0x0000, 0x0001,
                0x8001, 0x7C00, 0xFC00, 0x7BFF, 0x0400, 0xC123],
    "bfloat16": [0x7F81, 0xFF81, 0x7FA0, 0x7FC0, 0xFFC5, 0x7FFF, 0xFFFF, 0x8000, 0x0000, 0x0001,
                 0x8001, 0x7F80, 0xFF80, 0x7F7F, 0x0080, 0xC123],
}  # fmt: skip


def _bits16(values: list[int], dtype: str):
    raw = torch.from_numpy(np.array(values, np.uint16).view(np.int16).copy())
    return raw.view(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_fp16_bf16_neg_and_abs_only_touch_the_sign_bit(dtype: str) -> None:
    # neg and abs are bit operations in Triton (CUDA's neg/abs.f16/bf16): a signalling NaN keeps
    # its quiet bit clear. Through an fp32 round trip the CPU quieted it (bf16 0x7F81 -> 0xFFC1)
    bits = _SIGN_BIT_INPUTS[dtype]
    n = len(bits)
    neg, abs_ = (_bits16([0xA5A5] * (n + 1), dtype) for _ in range(2))
    _neg_abs[(1,)](_bits16(bits, dtype), neg, abs_, N=n)
    got_neg = neg.view(torch.int16).numpy().view(np.uint16).tolist()
    got_abs = abs_.view(torch.int16).numpy().view(np.uint16).tolist()
    assert got_neg[:n] == [v ^ 0x8000 for v in bits]
    assert got_abs[:n] == [v & 0x7FFF for v in bits]
    assert (got_neg[n], got_abs[n]) == (bits[0] ^ 0x8000, bits[0] & 0x7FFF)


@pytest.mark.parametrize("fn", ["neg", "abs"])
def test_fp16_neg_and_abs_keep_a_signalling_nan_without_f16c(fn: str) -> None:
    # a CPU without native fp16 conversions (baseline x86-64) widened through integer code that
    # quiets NaNs: 0x7D00 became 0xFF00. The element code, compiled for the host with that path
    import ctypes

    import llvmlite.binding as llvm
    from llvmlite import ir

    from support.native import compile_native
    from tilec.backends.cpu.mathops import emit_math
    from tilec.backends.cpu.scalar import native_half
    from tilec.ir.types import float16

    module = ir.Module()
    module.triple = llvm.get_process_triple()
    i16 = ir.IntType(16)
    f = ir.Function(module, ir.FunctionType(i16, [i16]), "f")
    b = ir.IRBuilder(f.append_basic_block())
    with native_half(False):
        b.ret(b.bitcast(emit_math(b, fn, float16, [b.bitcast(f.args[0], ir.HalfType())]), i16))
    engine = compile_native(module)
    call = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_uint16)(engine.get_function_address("f"))
    bits = _SIGN_BIT_INPUTS["float16"]
    want = [v ^ 0x8000 if fn == "neg" else v & 0x7FFF for v in bits]
    assert [call(v) for v in bits] == want


@tilec.jit
def _dot_acc_is_operand(x_ptr, y_ptr, out_ptr, N: tl.constexpr, WHICH: tl.constexpr):
    r = tl.arange(0, N)
    at = r[:, None] * N + r[None, :]
    c = tl.load(x_ptr + at) * 2.0  # live across the loop: it is kept in a buffer
    y = tl.load(y_ptr + at)
    for _ in range(2):
        y = y + 1.0
    if WHICH == 0:
        z = tl.dot(c, y, c, input_precision="ieee")
    else:
        z = tl.dot(y, c, c, input_precision="ieee")
    tl.store(out_ptr + at, z)


@tilec.jit
def _dot_recurrence(x_ptr, w_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    at = r[:, None] * N + r[None, :]
    x = tl.load(x_ptr + at)
    w = tl.load(w_ptr + at)
    for _ in range(3):
        x = tl.dot(x, w, x, input_precision="ieee")  # x += x @ w
    tl.store(out_ptr + at, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [8, 16])
def test_dot_whose_accumulator_is_also_an_operand(dtype: type, n: int) -> None:
    # the CPU added a @ b into the accumulator's buffer in place when nothing else read it, also
    # where the accumulator was the dot's a or b: that operand changed while it was multiplied
    # (found as tl.dot(v1, w, v1) with v1 kept across a loop; seed 139, kernel 865)
    rng = np.random.default_rng()
    x, y = (rng.integers(-3, 4, (n, n)).astype(dtype) for _ in range(2))
    c, y1 = x.astype(np.float64) * 2, y.astype(np.float64) + 2
    for which, want in enumerate([c @ y1 + c, y1 @ c + c]):
        out = np.full((n, n), np.nan, dtype)
        _dot_acc_is_operand[(1,)](x, y, out, N=n, WHICH=which)
        np.testing.assert_array_equal(out, want)
    w = rng.integers(-1, 2, (n, n)).astype(dtype)
    want = x.astype(np.float64)
    for _ in range(3):
        want = want + want @ w
    out = np.full((n, n), np.nan, dtype)
    _dot_recurrence[(1,)](x, w, out, N=n)
    np.testing.assert_array_equal(out, want)


@tilec.jit
def _gather_unsigned_offsets(x_ptr, out_ptr, N: tl.constexpr, MASK: tl.constexpr):
    pid = tl.program_id(0)
    idx = tl.arange(0, N).to(tl.uint32)
    v = tl.load(x_ptr + (pid * (MASK + 1) + (idx & MASK)))  # repeats x[pid*4 .. pid*4+3]
    tl.store(out_ptr + pid * N + tl.arange(0, N), v)


@pytest.mark.parametrize("mask", [1, 3, 7])
def test_gather_through_unsigned_masked_offsets(mask: int) -> None:
    # LLVM 22's loop vectorizer took zext(pid * 4 + (trunc(i) & 3)) for consecutive in i and
    # read x[pid * 4 + i]: past x for i >= 4 (found as a gather through uint32 offsets; seed 151,
    # kernel 3164). The CPU freezes an unsigned value before widening it
    n, grid = 64, 3
    x = np.random.default_rng().integers(-1000, 1000, grid * (mask + 1) + 64).astype(np.int32)
    out = np.full(grid * n, -7, np.int32)
    _gather_unsigned_offsets[(grid,)](x, out, N=n, MASK=mask)
    lane = np.arange(n) & mask
    want = np.concatenate([x[pid * (mask + 1) + lane] for pid in range(grid)])
    np.testing.assert_array_equal(out, want)
