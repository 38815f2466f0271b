"""Tuples as kernel arguments, as Triton passes them: (named, nested) tuples of arrays, scalars,
None and compile-time values, each element specialized like a whole argument, the compiled
kernel keyed on the tuple's structure, and the launch splicing the leaves in (CPU here; the CUDA
launch gets the same flat values, tests/backends/cuda/test_tuple_args_ptx.py)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit, poisoned, random
from tilec import config
from tilec.backends import launcher
from tilec.errors import OutOfBoundsError
from tilec.tools.tensor_descriptor import TensorDescriptor


@pytest.fixture(
    autouse=True, params=[pytest.param(True, id="python"), pytest.param(False, id="native")]
)
def launch_path(request):
    """Every test on both CPU launch paths: the generated Python one and the native one."""
    if not request.param and launcher.native_module() is None:
        pytest.skip("needs the native launcher (tilec._launcher)")
    with config.override(disable_launcher=request.param):
        yield


class View(NamedTuple):
    ptr: object
    n: object
    scale: object


@jit
def axpy(dst, srcs, coeffs, BLOCK: tl.constexpr):
    """dst = sum(coeffs[i] * load(srcs[i])) over a tuple of any length."""
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(srcs)):
        acc += coeffs[i] * tl.load(srcs[i] + offs)
    tl.store(dst + offs, acc)


def _axpy_reference(srcs, coeffs):
    return sum(c * s.astype(np.float64) for s, c in zip(srcs, coeffs))


def test_tuple_of_arrays_and_scalars():
    srcs = tuple(random(16, np.float32) for _ in range(3))
    dst = poisoned(16, np.float32)
    axpy[(1,)](dst, srcs, (0.5, -2.0, 3.0), BLOCK=16)
    np.testing.assert_allclose(dst, _axpy_reference(srcs, (0.5, -2.0, 3.0)), rtol=1e-5, atol=1e-5)


def test_structure_is_part_of_the_key():
    """Lengths and element types differ from launch to launch: each gets its own kernel."""
    for n, coeffs in [(1, (2.0,)), (2, (1.0, 3)), (2, (1, 1)), (3, (1.5, 1, -1))]:
        srcs = tuple(random(16, np.float32) for _ in range(n))
        dst = poisoned(16, np.float32)
        axpy[(1,)](dst, srcs, coeffs, BLOCK=16)
        np.testing.assert_allclose(dst, _axpy_reference(srcs, coeffs), rtol=1e-5, atol=1e-5)
    keys = [k for k in axpy._kernels if isinstance(k, tuple)]
    assert len(keys) >= 4


@jit
def nested(dst, t, cst: tl.constexpr):
    # t = (ptr, (int, None, ptr, constexpr))
    tl.static_assert(t[1][1] is None)
    tl.static_assert(t[1][3] == 4)
    tl.store(dst + 0, tl.load(t[0]))
    tl.store(dst + 1, t[1][0])
    tl.store(dst + 2, tl.load(t[1][2]))
    tl.store(dst + 3, cst + t[1][3])


@pytest.mark.parametrize("one", [1, 7])
def test_nested_tuple_with_none_and_constexpr(one):
    a = np.array([8], np.int32)
    b = np.array([12], np.int32)
    dst = poisoned(4, np.int32)
    nested[(1,)](dst, (a, (one, None, b, tl.constexpr(4))), 20)
    np.testing.assert_array_equal(dst, [8, one, 12, 24])


@jit
def named(dst, v, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(v.ptr + offs, mask=offs < v.n, other=0.0)
    tl.store(dst + offs, x * v.scale)


def test_named_tuple():
    x = random(32, np.float32)
    dst = poisoned(32, np.float32)
    named[(1,)](dst, View(x, 20, 2.5), BLOCK=32)
    ref = np.where(np.arange(32) < 20, x.astype(np.float64) * 2.5, 0.0)
    np.testing.assert_allclose(dst, ref, rtol=1e-6)


@jit
def apply_fn(dst, src, closure, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, closure[0](tl.load(src + offs), *closure[1]))


@tilec.jit
def _scaled_shift(x, a, b):
    return x * tl.load(a) + b


def test_jit_function_and_starred_call():
    """A @jit function inside a tuple is compile-time; ``f(*t)`` unpacks a tuple argument."""
    x = random(16, np.float32)
    a = np.array([1.5], np.float32)
    dst = poisoned(16, np.float32)
    apply_fn[(1,)](dst, x, (_scaled_shift, (a, 0.25)), BLOCK=16)
    np.testing.assert_allclose(dst, x.astype(np.float64) * 1.5 + 0.25, rtol=1e-6)


@jit
def shaped(X, shape: tl.constexpr, strides, m_n):
    offs = (
        tl.arange(0, shape[0])[:, None] * strides[0] + tl.arange(0, shape[1])[None, :] * strides[1]
    )
    data = tl.load(X + offs)
    for _ in tl.range(0, m_n[1]):
        data = m_n[0] * data
    tl.store(X + offs, data)


def test_shape_and_strides_tuples():
    """A constexpr tuple parameter, a tuple of strides (1 is specialized), a loop bound."""
    x = np.arange(64, dtype=np.int64).reshape(8, 8)
    expected = x * 8
    shaped[(1,)](x, x.shape, tuple(s // x.itemsize for s in x.strides), (2, 3))
    np.testing.assert_array_equal(x, expected)


def test_do_not_specialize_tuple():
    k = tilec.jit(axpy.fn, do_not_specialize=["coeffs"])
    srcs = (random(16, np.float32), random(16, np.float32))
    for coeffs in [(1, 16), (2, 32)]:
        dst = poisoned(16, np.float32)
        k[(1,)](dst, srcs, coeffs, BLOCK=16)
        np.testing.assert_allclose(dst, _axpy_reference(srcs, coeffs), rtol=1e-5, atol=1e-5)
    assert len(k._kernels) == 1  # neither 1 nor the multiples of 16 made a new kernel


def test_compiled_kernel_takes_tuples_whole():
    srcs = (random(16, np.float32), random(16, np.float32))
    dst = poisoned(16, np.float32)
    compiled = axpy.warmup(dst, srcs, (1.0, 2.0), BLOCK=16, grid=(1,))
    compiled[(1,)](dst, srcs, (1.0, 2.0), 16)
    np.testing.assert_allclose(dst, _axpy_reference(srcs, (1.0, 2.0)), rtol=1e-5, atol=1e-5)


@jit
def read_past(dst, t):
    tl.store(dst + tl.arange(0, 8), tl.load(t[1] + tl.arange(0, 8)))


def test_bounds_checked_launch_names_the_leaf():
    k = tilec.jit(read_past.fn, debug=True)
    dst = poisoned(8, np.float32)
    with pytest.raises(OutOfBoundsError, match=r"t\[1\]"):
        k[(1,)](dst, (np.zeros(8, np.float32), np.zeros(4, np.float32)))


@jit
def blocks_of(dst, payload, BM: tl.constexpr, BN: tl.constexpr):
    a, b, row = payload
    tl.static_assert(a.block_shape == [BM, BN])
    block = a.load([row * BM, BN]) + b.load([row * BM, 2 * BN])
    tl.store(dst + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], block)


@pytest.mark.parametrize("debug", [False, True])
def test_descriptors_inside_a_tuple(debug):
    """Each descriptor is rebuilt in the kernel from its base, shape and strides; the second
    one's padded rows and its block past the last column read the padding (zero)."""
    k = tilec.jit(blocks_of.fn, debug=debug)
    a = random((32, 64), np.float32)
    b = random((20, 40), np.float32)
    dst = poisoned((8, 16), np.float32)
    da = TensorDescriptor.from_tensor(a, [8, 16])
    db = TensorDescriptor.from_tensor(b, [8, 16])
    k[(1,)](dst, (da, db, 2), BM=8, BN=16)
    padded = np.zeros((32, 64))
    padded[:20, :40] = b
    ref = a[16:24, 16:32].astype(np.float64) + padded[16:24, 32:48]
    np.testing.assert_array_equal(dst, ref.astype(np.float32))
