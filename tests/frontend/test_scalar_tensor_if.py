"""A one-element tensor is a scalar condition (``if``, ``while``, ``a if c else b``) and
``tl.item`` / ``x.item()`` turn it into a scalar, as in Triton; a bigger tile is still refused.
The same kernels run on CUDA (marked gpu)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host_np
from support.run import jit


@jit
def if_on_loaded(p, q):
    x = tl.load(p + tl.arange(0, 1))
    if x > 0:
        r = x * 2
    else:
        r = x - 100
    tl.store(q + tl.arange(0, 1), r)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("value", [3.5, -1.25])
def test_if_on_a_loaded_one_element_tensor(device, value):
    out = dev(np.full(1, np.nan, np.float32), device)
    if_on_loaded[(1,)](dev(np.array([value], np.float32), device), out)
    assert host_np(out)[0] == (value * 2 if value > 0 else value - 100)


@jit
def if_on_keep_dims(p, q, N: tl.constexpr):
    r = tl.arange(0, N)[:, None]
    c = tl.arange(0, N)[None, :]
    x = tl.load(p + r * N + c)
    total = tl.sum(tl.sum(x, axis=1, keep_dims=True), axis=0, keep_dims=True)  # shape [1, 1]
    if total > 0:
        tl.store(q, 1)
    else:
        tl.store(q, 2)
    tl.store(q + 1, total.item())
    tl.store(q + 2, tl.item(tl.max(x, axis=None, keep_dims=True)))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sign", [1, -1])
def test_if_on_a_keep_dims_reduction(device, sign):
    x = (np.random.default_rng().uniform(0.5, 1.0, (4, 4)) * sign).astype(np.float32)
    out = dev(np.full(3, np.nan, np.float32), device)
    if_on_keep_dims[(1,)](dev(x, device), out, N=4)
    got = host_np(out)
    assert got[0] == (1 if sign > 0 else 2)
    np.testing.assert_allclose(got[1], x.astype(np.float64).sum(), rtol=1e-5)
    assert got[2] == x.max()


@jit
def while_and_ternary(p, q):
    n = tl.load(p + tl.arange(0, 1))
    count = 0
    while n > 0:
        n = n - 1
        count += 1
    tl.store(q, count)
    flag = tl.load(p + 1 + tl.arange(0, 1))
    tl.store(q + 1, 10 if flag != 0 else 20)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n, flag", [(5, 1), (0, 0)])
def test_while_and_ternary_on_one_element_tensors(device, n, flag):
    out = dev(np.full(2, -1, np.int32), device)
    while_and_ternary[(1,)](dev(np.array([n, flag], np.int32), device), out)
    np.testing.assert_array_equal(host_np(out), [n, 10 if flag else 20])


@tilec.jit
def if_on_two_elements(p):
    x = tl.load(p + tl.arange(0, 2))
    if x > 0:
        tl.store(p, 1.0)


def test_a_bigger_tile_is_still_refused():
    pytest.importorskip("tilec.backends.cpu")
    with pytest.raises(tilec.TilecError, match="scalar or a one-element tensor"):
        if_on_two_elements[(1,)](np.zeros(2, np.float32))


@pytest.mark.parametrize(
    "fn, sigs",
    [
        (if_on_loaded, ("*fp32", "*fp32")),
        (if_on_keep_dims, ("*fp32", "*fp32", 4)),
        (while_and_ternary, ("*i32", "*i32")),
    ],
)
def test_cuda_lowering_assembles(fn, sigs):
    assert_assembles(fn, *sigs)


@jit
def keep_dims_total(x_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :])
    z = tl.sum(x, axis=None, keep_dims=True)  # shape [1, 1]
    tl.store(z_ptr[None, None, :], z)  # Triton's test_reduce stores it so: ':' past the rank


@pytest.mark.parametrize("device", DEVICES)
def test_store_of_a_keep_dims_total_through_an_indexed_scalar_pointer(device):
    x = np.random.default_rng().standard_normal((4, 8)).astype(np.float32)
    z = dev(np.full(1, np.nan, np.float32), device)
    keep_dims_total[(1,)](dev(x, device), z, M=4, N=8)
    np.testing.assert_allclose(host_np(z)[0], x.astype(np.float64).sum(), rtol=1e-5)
