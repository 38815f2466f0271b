"""``tilec.reinterpret(tensor, dtype)``: a tensor passed as a pointer to another element type
(Triton hands unsigned data to kernels so), on the native and the Python launch paths."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.run import jit
from tilec import config
from tilec.errors import UsageError

torch = pytest.importorskip("torch")


@jit
def halve(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(X + offs) // 2)


@jit
def widen(X, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(Y + offs, tl.load(X + offs).to(tl.float32))


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize(("signed", "unsigned"), [(torch.int8, tl.uint8), (torch.int16, tl.uint16),
                                                  (torch.int32, tl.uint32)])  # fmt: skip
def test_signed_tensor_read_as_unsigned(native, signed, unsigned):
    bits = torch.iinfo(signed).bits
    raw = torch.randint(torch.iinfo(signed).min, torch.iinfo(signed).max, (64,), dtype=signed)
    out = torch.full((64,), 7, dtype=signed)
    with config.override(disable_launcher=not native):
        for _ in range(2):  # cold, then warm
            halve[(1,)](tilec.reinterpret(raw, unsigned), tilec.reinterpret(out, unsigned), 64)
    as_unsigned = raw.numpy().astype(np.int64) % (1 << bits)
    np.testing.assert_array_equal(out.numpy().astype(np.int64) % (1 << bits), as_unsigned // 2)


def test_unsigned_conversion_to_float_sees_the_unsigned_value():
    raw = torch.tensor([-1, -128, 0, 127] * 4, dtype=torch.int8)
    out = torch.full((16,), float("nan"))
    widen[(1,)](tilec.reinterpret(raw, tl.uint8), out, 16)
    np.testing.assert_array_equal(out.numpy(), raw.numpy().view(np.uint8).astype(np.float32))


def test_wrapper_surface():
    base = torch.zeros(4, 3, dtype=torch.int32)
    w = tilec.reinterpret(base, tl.uint32)
    assert isinstance(w, tilec.TensorWrapper)
    assert w.dtype is tl.uint32 and w.base is base and w.shape == base.shape
    assert w.data_ptr() == base.data_ptr() and w.stride() == base.stride()
    assert tilec.reinterpret(w, torch.int32) is base  # back to the base's own dtype
    assert tilec.reinterpret(w, tl.int8).base is base


def test_host_dtypes_name_the_tl_dtype():
    raw = torch.tensor([-1, -128, 0, 127] * 4, dtype=torch.int8)
    out = torch.full((16,), float("nan"))
    wrapped = tilec.reinterpret(raw, torch.uint8)
    assert wrapped.dtype is tl.uint8
    widen[(1,)](wrapped, tilec.reinterpret(out, torch.float32), 16)
    np.testing.assert_array_equal(out.numpy(), raw.numpy().view(np.uint8).astype(np.float32))
    assert tilec.reinterpret(raw, np.dtype(np.uint8)).dtype is tl.uint8


def test_bad_reinterpret_requests_are_clear():
    with pytest.raises(TypeError, match="cannot reinterpret a list"):
        tilec.reinterpret([1, 2], tl.uint8)
    with pytest.raises(UsageError, match="must be a tl dtype"):
        tilec.reinterpret(torch.zeros(2), "uint8")


@pytest.mark.parametrize(
    ("torch_dtype", "tl_dtype"),
    [(torch.float8_e4m3fn, tl.float8e4nv), (torch.float8_e5m2, tl.float8e5),
     (torch.float8_e4m3fnuz, tl.float8e4b8), (torch.float8_e5m2fnuz, tl.float8e5b16)],
)  # fmt: skip
def test_fp8_arrays_reach_kernels_as_their_bits(torch_dtype, tl_dtype):
    # every bit pattern, as a torch fp8 tensor and as int8 bits reinterpreted by tilec
    bits = torch.arange(-128, 128, dtype=torch.int8)
    want = bits.view(torch_dtype).float()
    for arg in (bits.view(torch_dtype), tilec.reinterpret(bits, tl_dtype)):
        out = torch.full((256,), 12345.0)
        widen[(1,)](arg, out, 256)
        assert torch.equal(out.isnan(), want.isnan())
        assert torch.equal(out[~want.isnan()], want[~want.isnan()])
