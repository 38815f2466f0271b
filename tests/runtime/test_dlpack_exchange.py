"""torch's DLPack exchange API as the native dispatcher uses it: the dtype table is sound (codes
several dtypes share, and integer codes, make the dispatcher ask the tensor), the DLTensor
agrees with data_ptr(), and launches give the Python path's results and errors."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends import dlpack_exchange
from tilec.errors import UsageError

from .conftest import NEEDS_NATIVE

torch = pytest.importorskip("torch")
exchange = dlpack_exchange.torch_exchange(torch)
pytestmark = [
    pytest.mark.skipif(exchange is None, reason="this torch has no DLPack exchange API"),
    NEEDS_NATIVE,
    pytest.mark.usefixtures("native_launcher"),
]


@tilec.jit
def twice(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


def test_float_dtypes_map_to_themselves_and_integer_codes_ask_the_tensor():
    assert exchange is not None
    table = exchange.dtypes
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.bool):
        t = dlpack_exchange.describe(exchange, torch.empty(1, dtype=dtype))
        assert table[dlpack_exchange.packed_dtype(t.dtype.code, t.dtype.bits, 1)] is dtype
    for dtype in (torch.int8, torch.uint8, torch.int32, torch.int64):
        t = dlpack_exchange.describe(exchange, torch.empty(1, dtype=dtype))
        assert table[dlpack_exchange.packed_dtype(t.dtype.code, t.dtype.bits, 1)] is None
    assert len(set(v for v in table.values() if v is not None)) == sum(
        v is not None for v in table.values()
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.arange(10.0),
        lambda: torch.arange(10.0)[3:],  # a storage offset
        lambda: torch.arange(12.0).reshape(3, 4).t(),
        lambda: torch.randn(5, requires_grad=True),
        lambda: torch.empty(0),
    ],
    ids=["plain", "offset view", "transposed", "requires grad", "empty"],
)
def test_the_dltensor_points_where_data_ptr_does(make):
    tensor = make()
    t = dlpack_exchange.describe(exchange, tensor)
    assert (t.data or 0) + t.byte_offset == tensor.data_ptr()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "uint8"])
def test_launches_match_numpy_and_the_python_path(dtype):
    rng = np.random.default_rng()
    x = torch.from_numpy((rng.standard_normal(100) * 20).astype(dtype))[1:]  # offset view
    outs = []
    for disabled in (False, True):
        out = torch.full((99,), 7, dtype=x.dtype)
        with config.override(disable_launcher=disabled):
            twice[(1,)](x, out, 99, BLOCK=128)
            twice[(1,)](x, out, 99, BLOCK=128)  # warm: the native path
        outs.append(out.numpy())
    np.testing.assert_array_equal(outs[0], (x.numpy() * 2).astype(dtype))
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
@pytest.mark.parametrize("dtype", ["int4", "complex64", "qint8"])
def test_unsupported_dtypes_raise_the_python_paths_error(dtype):
    dt = getattr(torch, dtype)
    if dtype == "qint8":
        x = torch.quantize_per_tensor(torch.zeros(8), 0.1, 0, dt)
    else:
        x = torch.zeros(8, dtype=dt)
    messages = []
    for disabled in (False, True):
        with config.override(disable_launcher=disabled), pytest.raises(UsageError) as info:
            twice[(1,)](x, x, 8, BLOCK=8)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert dtype in messages[0]


@tilec.jit
def _widen(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(tl.float32))


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_tensors_launch_on_both_paths(dtype):
    x = torch.linspace(-4, 4, 16).to(getattr(torch, dtype))
    for disabled in (False, True):
        out = torch.full((16,), float("nan"))
        with config.override(disable_launcher=disabled):
            _widen[(1,)](x, out, N=16)
            _widen[(1,)](x, out, N=16)  # warm
        assert torch.equal(out, x.float())


def test_a_torch_without_the_api_has_no_exchange():
    class OldTorch:
        class Tensor:
            pass

        dtype = type(None)

    assert dlpack_exchange._probe(OldTorch) is None
