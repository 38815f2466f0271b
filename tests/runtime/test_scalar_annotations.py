"""A dtype annotation on a scalar parameter fixes its type (Triton's ``annotation_type``)."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import IntegerOverflowError, UsageError
from tilec.ir.argspec import ArgKind
from tilec.runtime import describers
from tilec.runtime.annotations import annotated_scalar
from tilec.runtime.arg_keys import FP32


@tilec.jit
def store_fp16(out, v: tl.float16):
    tl.static_assert(v.dtype == tl.float16)
    tl.store(out, v.to(tl.float64))


@tilec.jit
def store_fp64(out, v: "tl.float64"):  # Triton also reads a string
    tl.static_assert(v.dtype == tl.float64)
    tl.store(out, v)


@tilec.jit
def double_int8(out, v: tl.int8):
    tl.static_assert(v.dtype == tl.int8)
    tl.store(out, (v * 2).to(tl.int64))  # int8 arithmetic: wraps


@tilec.jit
def plain_int(out, v: int, w: bool):
    tl.static_assert(v.dtype == tl.int32)
    tl.static_assert(w.dtype == tl.int1)
    tl.store(out, v + w)


@tilec.jit(do_not_specialize=["v"])
def unspecialized_float(out, v):
    tl.store(out, v)


def _poisoned(dtype: type) -> np.ndarray:
    return np.full(1, -7, dtype)


@pytest.mark.parametrize(
    "value", [1 + 2**-11 + 2**-40, 1.0009765625 + 2**-12, 0.1, 65504.0, -3e-8, 42.0]
)
def test_float16_annotation_rounds_once_to_half(value: float) -> None:
    out = _poisoned(np.float64)
    store_fp16[(1,)](out, value)
    assert out[0] == float(np.float16(value))  # one rounding from the double, not via fp32


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_float16_annotation_keeps_inf_and_nan(value: float) -> None:
    out = _poisoned(np.float64)
    store_fp16[(1,)](out, value)
    np.testing.assert_equal(out[0], value)


def test_float64_annotation_keeps_every_bit() -> None:
    rng = np.random.default_rng()
    out = _poisoned(np.float64)
    for value in [1 / 3, *rng.standard_normal(3).tolist()]:
        store_fp64[(1,)](out, value)
        assert out[0] == value  # an unannotated float would pass through fp32
    store_fp64[(1,)](out, 7)  # an int converts, as Triton's launcher converts it
    assert out[0] == 7.0


@pytest.mark.parametrize("value", [100, -128, 127, 16, 1])
def test_int8_annotation_computes_in_int8(value: int) -> None:
    out = _poisoned(np.int64)
    double_int8[(1,)](out, value)
    assert out[0] == ((value * 2 + 128) % 256) - 128  # two's complement wrap-around


def test_int8_annotation_refuses_values_out_of_range_and_floats() -> None:
    out = _poisoned(np.int64)
    with pytest.raises(IntegerOverflowError, match=r"'v' is annotated tl.int8.*300"):
        double_int8[(1,)](out, 300)
    with pytest.raises(UsageError, match="takes an integer, got float"):
        double_int8[(1,)](out, 2.5)


def test_python_type_annotations_follow_triton() -> None:
    out = _poisoned(np.int32)
    plain_int[(1,)](out, 41, 5)  # bool: any nonzero number is True
    assert out[0] == 42
    with pytest.raises(IntegerOverflowError):
        plain_int[(1,)](out, 2**40, 0)  # ``int`` is i32, as in Triton


def test_annotated_float_is_not_specialized_on_its_value() -> None:
    key16 = store_fp16.warmup(np.zeros(1), 1.0, grid=(1,))
    assert store_fp16.warmup(np.zeros(1), 2.5, grid=(1,)) is key16
    fp16 = next(p for p in key16.params if p.name == "v")
    assert fp16.kind is ArgKind.SCALAR and fp16.type is tl.float16 and not fp16.equals_one


def test_annotated_int_keeps_divisibility_but_never_folds_one() -> None:
    one = double_int8.warmup(np.zeros(1, np.int64), 1, grid=(1,))
    sixteen = double_int8.warmup(np.zeros(1, np.int64), 16, grid=(1,))
    v1 = next(p for p in one.params if p.name == "v")
    v16 = next(p for p in sixteen.params if p.name == "v")
    assert v1.type is tl.int8 and not v1.equals_one and v1.is_runtime
    assert v16.type is tl.int8 and v16.divisible_by_16


def test_unspecialized_float_stays_a_float() -> None:
    # the key without value facts must keep fp32's type code (it used to read as a bool)
    assert describers._unspecialized_key(FP32) == FP32
    out = _poisoned(np.float32)
    unspecialized_float[(1,)](out, 2.5)
    assert out[0] == 2.5


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (tl.bfloat16, tl.bfloat16),
        ("tl.uint8", tl.uint8),
        ("fp16", tl.float16),
        ("uint16_t", tl.uint16),
        (float, tl.float32),
        ("u1", tl.int1),
        ("*fp16", None),  # pointer annotations are not scalar types
        ("tl.constexpr", None),
        (np.ndarray, None),
        ("tl.tensor", None),
    ],
)
def test_annotation_spellings(annotation: object, expected: object) -> None:
    assert annotated_scalar(annotation) is expected


@tilec.jit
def store_bf16(out, v: tl.bfloat16):
    tl.static_assert(v.dtype == tl.bfloat16)
    tl.store(out, v.to(tl.float64))


@pytest.mark.parametrize(
    "value,want",
    [
        (1.0, 1.0),
        (1 + 2.0**-8, 1.0),  # a tie: to even
        (1 + 3 * 2.0**-8, 1 + 2.0**-6),  # a tie: up, to even
        (-3.0e38, -2.9980278e38),  # rounded once from the double
        (1e-40, 2.0**-133),  # bf16's smallest subnormal
    ],
)
def test_a_bf16_scalar_is_rounded_once_from_the_number(value: float, want: float) -> None:
    # the CPU's Python launch path packs the slot with bf16's bits (the annotated kernel
    # takes that path); it raised UnsupportedFeature before
    out = np.full(1, np.nan)
    store_bf16[(1,)](out, value)
    np.testing.assert_allclose(out[0], want, rtol=2.0**-8)
    from tilec.backends.float_bits import FORMATS, round_float_bits

    bits = round_float_bits(value, *FORMATS["bf16"])
    exact = np.frombuffer(np.array([bits << 16], np.uint32).tobytes(), np.float32)[0]
    assert out[0] == float(exact)
