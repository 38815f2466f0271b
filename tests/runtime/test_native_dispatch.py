"""The native dispatcher (``kernel[grid]`` in C): the same keys, table, results and errors as
the generated Python launch function it falls back to, and no leaked references."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import DeviceAssertError, UsageError

from .conftest import NEEDS_NATIVE

pytestmark = [NEEDS_NATIVE, pytest.mark.usefixtures("native_launcher")]


@tilec.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, flag, unused, BLOCK: tl.constexpr, SCALE: tl.constexpr = 2):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    r = a * x + y * SCALE
    if flag:
        r = -r
    tl.store(out_ptr + offs, r, mask=mask)


@tilec.jit(do_not_specialize=["n"])
def scale_rows(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(1)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + row * stride + offs, mask=mask)
    tl.store(out_ptr + row * stride + offs, v * (row + 1), mask=mask)


@tilec.jit
def checked(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(v >= 0, "negative input")


def _reference(x, y, a, flag, scale=2):
    r = a * x.astype(np.float64) + y.astype(np.float64) * scale
    return -r if flag else r


def _inputs(n: int):
    rng = np.random.default_rng()
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    return x, y, np.full(n, np.nan, np.float32)


def test_kernel_grid_is_the_native_launcher():
    assert type(axpy[(1,)]).__name__ == "Bound"


@pytest.mark.parametrize("n", [1, 16, 100, 1000])
@pytest.mark.parametrize("flag", [True, False])
def test_results_match_numpy_for_scalar_kinds(n, flag):
    x, y, out = _inputs(n)
    axpy[(tilec.cdiv(n, 64),)](x, y, out, 1.5, n, flag, None, BLOCK=64)
    np.testing.assert_allclose(out, _reference(x, y, 1.5, flag), rtol=1e-6, atol=1e-5)


def test_int_scalar_and_constexpr_given_by_position_and_default_overridden():
    x, y, out = _inputs(300)
    axpy[(3,)](x, y, out, 3, 300, False, None, 128, 5)
    np.testing.assert_allclose(out, _reference(x, y, 3, False, 5), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize(
    "grid",
    [
        lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),),
        [5],
        5,
        (5, 1),
        (5, 1, 1),
        [5, 1, 1],
        (np.int64(5),),
    ],
    ids=["callable", "list", "int", "2d", "3d", "3d list", "numpy int"],
)
def test_every_grid_form(grid):
    for _ in range(2):  # the second launch is a warm one, through the native path
        x, y, out = _inputs(300)
        axpy[grid](x, y, out, 0.5, 300, False, None, BLOCK=64)
        np.testing.assert_allclose(out, _reference(x, y, 0.5, False), rtol=1e-6, atol=1e-5)


def test_empty_grid_runs_nothing():
    x, y, out = _inputs(64)
    axpy[(0,)](x, y, out, 1.0, 64, False, None, BLOCK=64)
    assert np.isnan(out).all()


def test_torch_tensors_and_a_2d_grid_with_do_not_specialize():
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 100)
    out = torch.full_like(x, float("nan"))
    for n in (100, 64):
        scale_rows[(2, 3)](x, out, 100, n, BLOCK=64)
        expected = x.numpy()[:, :n] * np.arange(1, 4)[:, None]
        np.testing.assert_allclose(out.numpy()[:, :n], expected, rtol=1e-6, atol=1e-5)
    assert len(scale_rows._kernels) == 1


def test_torch_tensor_given_new_data_is_described_again():
    torch = pytest.importorskip("torch")
    x, out = torch.randn(2, 64), torch.full((2, 64), float("nan"))
    scale_rows[(1, 2)](x, out, 64, 64, BLOCK=64)
    count = len(scale_rows._kernels)
    # .data = swaps the storage and dtype under the same Python object (as Module.to does)
    x.data, out.data = x.data.double(), torch.full((2, 64), float("nan"), dtype=torch.float64)
    scale_rows[(1, 2)](x, out, 64, 64, BLOCK=64)
    assert out.dtype == torch.float64
    np.testing.assert_array_equal(out.numpy(), x.numpy() * np.array([[1.0], [2.0]]))
    assert len(scale_rows._kernels) == count + 1


def test_torch_subclass_takes_the_generic_path():
    torch = pytest.importorskip("torch")

    class Tagged(torch.Tensor):
        pass

    x = torch.randn(1, 64).as_subclass(Tagged)
    out = torch.full((1, 64), float("nan")).as_subclass(Tagged)
    scale_rows[(1, 1)](x, out, 64, 64, BLOCK=64)
    np.testing.assert_array_equal(out.numpy(), x.numpy())


def test_numpy_dtype_is_read_from_the_array_struct():
    from tilec.runtime import numpy_struct

    assert numpy_struct.layout().descr > 0
    for dtype in (np.float32, np.float64, np.float32):
        x, y = (np.arange(64, dtype=dtype) for _ in range(2))
        out = np.full(64, np.nan, dtype)
        axpy[(1,)](x, y, out, 1.0, 64, False, None, BLOCK=64)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, 3 * np.arange(64))


def test_keywords_in_any_order_and_calls_through_tp_call():
    import functools

    x, y, _ = _inputs(300)
    expected = _reference(x, y, 0.5, True, 3)
    launch = axpy[(5,)]
    kwargs = dict(SCALE=3, unused=None, flag=True, n=300, a=0.5, BLOCK=64)
    calls = [
        lambda out: launch(x, y, out, **kwargs),
        lambda out: launch(out_ptr=out, y_ptr=y, x_ptr=x, **kwargs),
        lambda out: type(launch).__call__(launch, x, y, out, **kwargs),  # the tp_call slot
        lambda out: type(launch).__call__(launch, x, y, out, 0.5, 300, True, None, 64, 3),
        lambda out: functools.partial(launch, x, y)(out, **kwargs),
    ]
    for call in calls:
        out = np.full(300, np.nan, np.float32)
        call(out)
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)
    with pytest.raises(TypeError):
        type(launch).__call__(launch, x, y, x, 0.5, 300, True, None, 64, 3, 4, 5)


def test_native_and_python_paths_share_one_table():
    x, y, out = _inputs(64)
    axpy.run(x, y, out, 1.0, 64, False, None, grid=(1,), BLOCK=64)
    count = len(axpy._kernels)
    axpy[(1,)](x, y, out, 1.0, 64, False, None, BLOCK=64)
    assert len(axpy._kernels) == count


def test_same_results_as_the_python_fallback():
    x, y, _ = _inputs(500)
    outs = []
    for disabled in (False, True):
        out = np.full(500, np.nan, np.float32)
        with config.override(disable_launcher=disabled):
            axpy[(8,)](x, y, out, -2.0, 500, True, None, BLOCK=64)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_launch_options_reach_the_kernel():
    x, y, out = _inputs(64)
    axpy[(1,)](x, y, out, 1.0, 64, False, None, BLOCK=64, num_warps=2)
    np.testing.assert_allclose(out, _reference(x, y, 1.0, False), rtol=1e-6, atol=1e-5)


def test_errors_are_the_python_paths():
    x, y, out = _inputs(64)
    readonly = out.copy()
    readonly.flags.writeable = False
    with pytest.raises(UsageError, match="read-only array"):
        axpy[(1,)](x, y, readonly, 1.0, 64, False, None, BLOCK=64)
    with pytest.raises(UsageError, match="missing argument"):
        axpy[(1,)](x, y, out, 1.0, 64, False, BLOCK=64)
    with pytest.raises(UsageError, match="does not fit"):
        axpy[(1,)](x, y, out, 1e39, 64, False, None, BLOCK=64)
    for bad in ((-1,), [-1], [1, -1]):  # the warm path hands these to the Python one
        with pytest.raises(UsageError, match="grid dimensions must be >= 0"):
            axpy[bad](x, y, out, 1.0, 64, False, None, BLOCK=64)
    with pytest.raises(TypeError):
        axpy[(1,)](x, y, out, 1.0, 64, False, None, BLOCK=64, n=3)


def test_device_assert_raises():
    data = np.ones(16, np.float32)
    checked[(1,)](data, 16, BLOCK=16)
    data[3] = -1.0
    with pytest.raises(DeviceAssertError, match="negative input"):
        checked[(1,)](data, 16, BLOCK=16)


def test_warm_launches_leak_no_references():
    x, y, out = _inputs(64)
    launch = axpy[(1,)]
    launch(x, y, out, 1.0, 64, False, None, BLOCK=64)
    before = [sys.getrefcount(v) for v in (x, y, out, launch)]
    for _ in range(200):
        launch(x, y, out, 1.0, 64, False, None, BLOCK=64)
        axpy[(1,)](x, y, out, 1.0, 64, False, None, BLOCK=64)
        type(launch).__call__(launch, x, y, out, 1.0, 64, False, None, BLOCK=64)
    assert [sys.getrefcount(v) for v in (x, y, out, launch)] == before


def test_threads_alternating_specializations_get_their_own_kernels():
    import threading
    import time

    def grid(meta):
        time.sleep(0)  # lets another thread run between lookup and launch
        return (tilec.cdiv(meta["n"], meta["BLOCK"]),)

    errors: list[BaseException] = []

    def work(dtype) -> None:
        try:
            rng = np.random.default_rng()
            for _ in range(30):
                x = rng.standard_normal(200).astype(dtype)
                y = rng.standard_normal(200).astype(dtype)
                out = np.full(200, np.nan, dtype)
                axpy[grid](x, y, out, 2.0, 200, False, None, BLOCK=64)
                np.testing.assert_allclose(out, _reference(x, y, 2.0, False), rtol=1e-5, atol=1e-5)
        except BaseException as exc:  # reported below: a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in [np.float32, np.float64] * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[0]
