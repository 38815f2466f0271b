"""kernel[grid](...) end to end on the fake CPU backend: packing, grids, the kernel table."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import UsageError

from .fake_backend import PROGRAMS, f32


def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass


def _add_program(args, pid, grid):
    x, y, out, n = args
    for i in range(pid * 4, min(pid * 4 + 4, n)):
        f32(out, i).value = f32(x, i).value + f32(y, i).value


@pytest.fixture
def add(fake):
    PROGRAMS["add_kernel"] = _add_program
    return tilec.jit(add_kernel)  # a fresh kernel table per test


def _inputs(n, rng):
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    return x, y, out


def test_vector_add_runs_and_matches_numpy(add, fake):
    rng = np.random.default_rng()
    x, y, out = _inputs(37, rng)
    add[(tilec.cdiv(37, 4),)](x, y, out, 37, BLOCK=4)
    np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)
    assert fake.STATS.compiles == 1


def test_warm_launch_reuses_the_kernel(add, fake):
    rng = np.random.default_rng()
    for n in (32, 48, 64):  # all divisible by 16: one specialization
        x, y, out = _inputs(n, rng)
        add[lambda meta: (tilec.cdiv(meta["n"], 4),)](x, y, out, n, BLOCK=4)
        np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)
    assert fake.STATS.compiles == 1 and fake.STATS.loads == 1


def test_new_specialization_compiles_again(add, fake):
    rng = np.random.default_rng()
    x, y, out = _inputs(40, rng)
    add[(10,)](x, y, out, 32, BLOCK=4)
    add[(10,)](x, y, out, 33, BLOCK=4)  # not divisible by 16
    add[(10,)](x, y, out, 40, BLOCK=8)  # another constexpr
    assert fake.STATS.compiles == 3


def test_grid_callable_sees_constexprs_and_options(add):
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (0,)

    x, y, out = _inputs(8, np.random.default_rng())
    add[grid](x, y, out, 8, BLOCK=4, num_warps=2)
    assert seen["BLOCK"] == 4 and seen["n"] == 8 and seen["num_warps"] == 2
    assert seen["x_ptr"] is x


def test_zero_grid_runs_nothing(add):
    x, y, out = _inputs(8, np.random.default_rng())
    add[(0,)](x, y, out, 8, BLOCK=4)
    add[(4, 0, 1)](x, y, out, 8, BLOCK=4)
    assert np.isnan(out).all()


@pytest.mark.parametrize("grid", [(-1,), (1.5,), (1, 2, 3, 4), ("2",), ()])
def test_bad_grid_raises_usage_error(add, grid):
    x, y, out = _inputs(8, np.random.default_rng())
    with pytest.raises(UsageError, match="grid"):
        add[grid](x, y, out, 8, BLOCK=4)


def test_keyword_arguments_and_missing_ones(add):
    x, y, out = _inputs(8, np.random.default_rng())
    add[(2,)](x, y, out_ptr=out, n=8, BLOCK=4)
    np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=1e-6)
    with pytest.raises(TypeError, match="add_kernel\\(\\) missing"):
        add[(2,)](x, y, out, BLOCK=4)


def test_unknown_keyword_is_rejected(add):
    x, y, out = _inputs(8, np.random.default_rng())
    with pytest.raises(UsageError, match="BLOK"):
        add[(2,)](x, y, out, 8, BLOCK=4, BLOK=4)


def test_calling_a_kernel_directly_is_an_error(add):
    with pytest.raises(UsageError, match=r"add_kernel\[grid\]"):
        add(1, 2)


def test_warmup_compiles_without_running(add, fake):
    x, y, out = _inputs(16, np.random.default_rng())
    compiled = add.warmup(x, y, out, 16, BLOCK=4, grid=(4,))
    assert np.isnan(out).all()
    assert fake.STATS.compiles == 1
    assert compiled.name == "add_kernel" and "tir" in compiled.asm
    assert [str(p) for p in compiled.metadata.params] == [
        "x_ptr: *fp32:16",
        "y_ptr: *fp32:16",
        "out_ptr: *fp32:16",
        "n: i32:16",
    ]


def test_launch_options_in_any_order_share_one_kernel(add, fake):
    x, y, out = _inputs(16, np.random.default_rng())
    k1 = add[(4,)](x, y, out, 16, BLOCK=4, num_warps=2, num_stages=2)
    k2 = add[(4,)](x, y, out, 16, num_stages=2, BLOCK=4, num_warps=2)
    k3 = add[(4,)](x, y, out, 16, BLOCK=4, num_warps=8)
    assert k1 is k2 and k1 is not k3
    assert k1.metadata.options.num_warps == 2 and k3.metadata.options.num_warps == 8
    assert fake.STATS.compiles == 2


def test_float_beyond_fp32_is_a_usage_error(fake):
    def takes_float(x, a):
        pass

    PROGRAMS["takes_float"] = lambda args, pid, grid: None
    k = tilec.jit(takes_float)
    k[(1,)](np.zeros(1, np.float32), float("inf"))  # inf is an fp32 value
    with pytest.raises(UsageError, match="a=1e\\+40 does not fit in fp32"):
        k[(1,)](np.zeros(1, np.float32), 1e40)


def test_compiled_kernel_repr_names_its_specialization(add):
    x, y, out = _inputs(16, np.random.default_rng())
    text = repr(add.warmup(x, y, out, 16, BLOCK=4))
    assert text.startswith("<tilec kernel add_kernel on fake:fake-cpu") and "BLOCK=4" in text
