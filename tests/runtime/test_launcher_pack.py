"""Argument packing: the native and fallback launchers write the same slots, floats round to
nearest-even straight from the double, and every parameter type reaches a real kernel intact."""

from __future__ import annotations

import importlib.util
import math
from fractions import Fraction

import numpy as np
import pytest

from tilec import config
from tilec.backends import launcher
from tilec.errors import LaunchError

from ._launcher_llvm import PARAMS, echo_kernel, jit

needs_native = pytest.mark.skipif(
    importlib.util.find_spec("tilec._launcher") is None, reason="tilec._launcher is not built"
)
BOTH = [pytest.param(True, marks=needs_native), False]


def pack(codes: bytes, args: tuple, *, native: bool) -> np.ndarray:
    slots = np.full(max(len(args), 1), 0xDEADBEEF, dtype=np.uint64)
    with config.override(disable_launcher=not native):
        launcher.pack_args(codes, args, slots.ctypes.data)
    return slots[: len(args)]


def random_doubles(rng: np.random.Generator, n: int) -> list[float]:
    """Doubles across every exponent that matters, plus the special values and exact ties."""
    mant = rng.uniform(-2.0, 2.0, n)
    exps = rng.integers(-160, 140, n)
    values = [float(m * 2.0**e) for m, e in zip(mant, exps)]
    ties = [1 + 2**-11, 1 + 3 * 2**-11, 2**-25, 3 * 2**-25, 65520.0, 1 + 2**-8, 1 + 2**-24]
    specials = [0.0, -0.0, math.inf, -math.inf, 1e300, -1e300, 5e-324, 2.0**-1074, 65504.0]
    return values + ties + [-t for t in ties] + specials


@needs_native
@pytest.mark.parametrize("code", "efEd")
def test_float_slots_are_identical_native_and_fallback(code):
    values = (*random_doubles(np.random.default_rng(), 400), math.nan)
    codes = code.encode() * len(values)
    np.testing.assert_array_equal(
        pack(codes, values, native=True), pack(codes, values, native=False)
    )


@needs_native
def test_integer_slots_are_identical_native_and_fallback():
    rng = np.random.default_rng()
    args, codes = [], b""
    for code, lo, hi in [("b", -128, 127), ("h", -(2**15), 2**15 - 1), ("i", -(2**31), 2**31 - 1),
                         ("q", -(2**63), 2**63 - 1), ("B", 0, 255), ("H", 0, 65535),
                         ("I", 0, 2**32 - 1), ("Q", 0, 2**64 - 1), ("P", 0, 2**64 - 1),
                         ("?", 0, 1)]:  # fmt: skip
        picks = [
            lo,
            hi,
            int(
                rng.integers(
                    lo, hi, endpoint=True, dtype=np.uint64 if lo == 0 and hi > 2**63 else np.int64
                )
            ),
        ]
        args += picks
        codes += code.encode() * len(picks)
    args += [True, np.int32(-5), np.uint64(2**64 - 1)]
    codes += b"?qQ"
    got = pack(codes, tuple(args), native=True)
    np.testing.assert_array_equal(got, pack(codes, tuple(args), native=False))
    assert got[0] == 2**64 - 128  # -128 as i8, sign-extended to 64 bits


@pytest.mark.parametrize(("code", "dtype"), [("e", np.float16), ("f", np.float32)])
@pytest.mark.parametrize("native", BOTH)
def test_floats_round_like_numpy(code, dtype, native):
    values = random_doubles(np.random.default_rng(), 400)
    got = pack(code.encode() * len(values), tuple(values), native=native)
    with np.errstate(over="ignore"):
        want = np.array(values, dtype=np.float64).astype(dtype)
    bits = want.view(np.uint16 if dtype is np.float16 else np.uint32).astype(np.uint64)
    np.testing.assert_array_equal(got, bits)


def bf16_reference(x: float) -> int:
    """Round x to bfloat16 exactly with rationals (ties to even)."""
    if x == 0 or math.isinf(x):
        return int(np.array(x, dtype=np.float32).view(np.uint32)) >> 16
    sign = 0x8000 if x < 0 else 0
    a = Fraction(abs(x))
    e = max(math.floor(math.log2(a)), -126)
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a and e >= -126:
        e += 1
    e = max(e, -126)
    ulp = Fraction(2) ** (e - 7)
    q, r = divmod(a, ulp)
    q = int(q) + (1 if r > ulp / 2 or (r == ulp / 2 and int(q) % 2) else 0)
    value = q * ulp
    if value >= Fraction(2) ** 128:
        return sign | 0x7F80
    if value < Fraction(2) ** -126:
        return sign | int(value / Fraction(2) ** -133)
    ee = math.floor(math.log2(value))
    while Fraction(2) ** ee > value:
        ee -= 1
    while Fraction(2) ** (ee + 1) <= value:
        ee += 1
    return sign | ((ee + 127) << 7) | int(value / Fraction(2) ** (ee - 7)) - 128


@pytest.mark.parametrize("native", BOTH)
def test_bfloat16_rounds_to_nearest_even(native):
    values = [v for v in random_doubles(np.random.default_rng(), 300) if abs(v) < 1e300]
    got = pack(b"E" * len(values), tuple(values), native=native)
    assert [int(g) for g in got] == [bf16_reference(v) for v in values]


@pytest.mark.parametrize("native", BOTH)
@pytest.mark.parametrize(
    ("code", "value"),
    [("b", 128), ("B", -1), ("?", 2), ("q", 2**63), ("Q", 2**64), ("P", -1),
     ("i", 1.5), ("f", "1.5"), ("d", None), ("x", 1)],
)  # fmt: skip
def test_values_that_do_not_fit_are_launch_errors(native, code, value):
    with pytest.raises(LaunchError, match="argument 0"):
        pack(code.encode(), (value,), native=native)


@pytest.mark.parametrize("native", BOTH)
def test_codes_and_arguments_must_match(native):
    with pytest.raises(LaunchError, match="type codes"):
        pack(b"ii", (1,), native=native)


@pytest.fixture(scope="module")
def echo():
    return jit(echo_kernel())


@pytest.mark.parametrize("native", BOTH)
def test_every_parameter_type_reaches_the_kernel(echo, native):
    rng = np.random.default_rng()
    f = float(rng.standard_normal())
    values = [True, -100, -30000, -2_000_000_000, -(2**62), 200, 60000, 4_000_000_000,
              2**64 - 2048, f, f, f, f]  # fmt: skip
    out = np.full(len(PARAMS), np.nan)
    codes = b"P" + "".join(c for c, _, _ in PARAMS).encode()
    args = np.zeros(len(codes), dtype=np.uint64)
    status = np.zeros(4, dtype=np.int64)
    with config.override(disable_launcher=not native):
        launcher.pack_args(codes, (out.ctypes.data, *values), args.ctypes.data)
        launcher.run_cpu_grid(echo.address, args.ctypes.data, (1, 1, 1), 1, status.ctypes.data)
    want = [float(v) for v in values[:9]] + [
        float(np.array(f, dtype=np.float16).view(np.uint16)),  # fp16/bf16 arrive as bits
        float(bf16_reference(f)),
        float(np.float32(f)),
        f,
    ]
    np.testing.assert_array_equal(out, np.array(want))


@pytest.mark.parametrize(("name", "code"), [("bf16", b"E"), ("fp16", b"e")])
def test_the_cuda_ctypes_path_rounds_as_the_launcher(name: str, code: bytes) -> None:
    """The CUDA driver's ctypes launch (no native launcher) packs 16-bit floats as the launcher
    does: rounded once from the double. bf16 went through fp32 first, so 1 + 2**-8 + 2**-30
    (just above a bf16 tie) became the tie in fp32 and rounded down to 1.0."""
    from tilec.backends.cuda.driver import pack_argument
    from tilec.ir import types as T
    from tilec.ir.argspec import scalar_arg

    spec = scalar_arg("x", T.BY_NAME[name])
    values = [*random_doubles(np.random.default_rng(7), 300), 1 + 2**-8 + 2**-30, math.nan]
    got = [pack_argument(spec, v).value for v in values]
    assert got == [int(s) for s in pack(code * len(values), tuple(values), native=False)]
    if name == "bf16":
        assert pack_argument(spec, 1 + 2**-8 + 2**-30).value == 0x3F81
