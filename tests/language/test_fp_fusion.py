"""``enable_fp_fusion`` (on by default, as in Triton): an fp32/fp64 product whose only use is one
addition or subtraction is fused with it and rounded once, chosen in the tile IR so that every
backend computes the same bits; ``enable_fp_fusion=False`` rounds each operation.

The inputs make the two differ: x = y = 1 + 2**-12 gives x*y = 1 + 2**-11 + 2**-24, which fp32
rounds (a tie, to even) to 1 + 2**-11; minus z = 1 + 2**-11 that is 0 unfused and 2**-24 fused."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned

X = 1 + 2.0**-12
Z = 1 + 2.0**-11


@jit
def mul_add(x_ptr, y_ptr, z_ptr, out_ptr, FORM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x, y, z = tl.load(x_ptr + offs), tl.load(y_ptr + offs), tl.load(z_ptr + offs)
    if FORM == 0:
        r = x * y - z
    elif FORM == 1:
        r = z - x * y
    else:
        r = x * y + (-z)
    tl.store(out_ptr + offs, r)


def _run(dtype: str, form: int, **options: object) -> np.ndarray:
    x = np.full(16, X, dtype)
    z = np.full(16, Z, dtype)
    out = poisoned(16, dtype)
    mul_add[(1,)](x, x, z, out, FORM=form, BLOCK=16, **options)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form,sign", [(0, 1), (1, -1), (2, 1)])
def test_a_product_and_a_sum_round_once(dtype: str, form: int, sign: int) -> None:
    exact = sign * 2.0**-24  # (1 + 2**-12)**2 - (1 + 2**-11), exact in either type
    np.testing.assert_array_equal(_run(dtype, form), np.full(16, exact, dtype))


@pytest.mark.parametrize("form", [0, 1, 2])
def test_without_fusion_each_operation_rounds(form: int) -> None:
    np.testing.assert_array_equal(_run("float32", form, enable_fp_fusion=False), np.zeros(16))


@tilec.jit
def shared_product(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    p = x * x
    tl.store(out_ptr + offs, p + 1.0)
    tl.store(out_ptr + BLOCK + offs, p)


@tilec.jit
def half_mul_add(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x * x + x)


def _tir(kernel, signature: str) -> str:  # type: ignore[no-untyped-def]
    tir = tilec.compile(kernel, signature, target="cpu").asm["tir"]
    assert isinstance(tir, str)
    return tir


def test_a_product_used_twice_or_in_16_bits_is_not_fused() -> None:
    # fusing a product that is also stored would compute it twice; a backend that computes
    # fp16 in fp32 would round a fused fp16 result twice
    assert "fma" not in _tir(shared_product, "*fp32, *fp32, BLOCK=16")
    assert "fma" not in _tir(half_mul_add, "*fp16, *fp16, BLOCK=16")
    assert "fma" in _tir(half_mul_add, "*fp32, *fp32, BLOCK=16")


def test_the_default_follows_the_language_knob() -> None:
    # Triton's knobs.language.default_fp_fusion: the default of launches that do not say;
    # a launch's own enable_fp_fusion still decides, and each setting keeps its own kernels
    from tilec.compat.triton import knobs

    with knobs.language.scope():
        knobs.language.default_fp_fusion = False
        assert knobs.language.default_fp_fusion is False
        np.testing.assert_array_equal(_run("float32", 0), np.zeros(16))
        np.testing.assert_array_equal(
            _run("float32", 0, enable_fp_fusion=True), np.full(16, 2.0**-24, "float32")
        )
    np.testing.assert_array_equal(_run("float32", 0), np.full(16, 2.0**-24, "float32"))


def test_the_environment_sets_the_default() -> None:
    from tilec import config

    assert config.Config.from_env({"TRITON_DEFAULT_FP_FUSION": "0"}).default_fp_fusion is False
    assert config.Config.from_env({"TILEC_DEFAULT_FP_FUSION": "off"}).default_fp_fusion is False
    assert config.Config.from_env({}).default_fp_fusion is True
