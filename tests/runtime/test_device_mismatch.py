"""Arrays a kernel cannot reach are UsageErrors naming the argument before any launch, on both
launch paths, cold and warm: a torch ``meta`` tensor (no storage: the kernel faulted at address
0 before), a tensor on a device that is neither the CPU nor a CUDA GPU, and an array on another
device than the backend the launch is pinned to."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.errors import UsageError

from .conftest import NEEDS_NATIVE

torch = pytest.importorskip("torch")

N = 16


@pytest.fixture(
    params=[pytest.param(True, id="python"), pytest.param(False, id="native", marks=NEEDS_NATIVE)]
)
def path(request, private_cache):
    with config.override(disable_launcher=request.param):
        yield request.param


def _copy_kernel(backend=None):
    @tilec.jit(backend=backend)
    def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    return copy


def _checked_copy(kernel, x, out):
    """A launch that works, so the next one takes the warm path."""
    out.fill_(float("nan")) if hasattr(out, "fill_") else out.fill(np.nan)
    kernel[(1,)](x, out, N, BLOCK=N)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(x))


class FakeCudaArray:
    """An object that says its memory is on a CUDA GPU (never dereferenced here)."""

    def __init__(self, host: np.ndarray) -> None:
        self.host = host

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.host.ctypes.data, False), "typestr": "<f4",
                "shape": self.host.shape, "version": 3}  # fmt: skip


class OtherDeviceArray:
    """A data_ptr() array that names its device (as DLPack-less libraries do)."""

    dtype = torch.float32

    def __init__(self, device) -> None:
        self.device = device

    def data_ptr(self) -> int:
        return 64


def test_a_meta_tensor_is_refused_cold_and_warm(path):
    kernel = _copy_kernel()
    x = torch.rand(N)
    meta = torch.empty(N, device="meta")
    with pytest.raises(UsageError, match=r"argument 'out_ptr': a 'meta' tensor .* no data"):
        kernel[(1,)](x, meta, N, BLOCK=N)  # cold
    _checked_copy(kernel, x, torch.empty(N))
    for _ in range(2):  # warm: the same key as a host tensor's, it must not launch
        with pytest.raises(UsageError, match="argument 'out_ptr': a 'meta' tensor"):
            kernel[(1,)](x, meta, N, BLOCK=N)
        with pytest.raises(UsageError, match="argument 'x_ptr': a 'meta' tensor"):
            kernel[(1,)](meta, torch.empty(N), N, BLOCK=N)
    _checked_copy(kernel, x, torch.empty(N))  # the process is fine


def test_an_empty_host_tensor_still_launches(path):
    """Its data pointer is 0 as a meta tensor's is, but it is a host tensor."""
    kernel = _copy_kernel()
    empty = torch.empty(0)
    assert empty.data_ptr() == 0
    for _ in range(2):
        kernel[(1,)](empty, torch.empty(0), 0, BLOCK=N)


@pytest.mark.parametrize(
    ("device", "message"),
    [
        (torch.device("meta"), "a 'meta' tensor"),
        (torch.device("mps"), "on the 'mps' device"),
        ("xpu:1", "on the 'xpu' device"),  # a device given as a string
        (torch.device("cuda", 0), r"different devices \(cpu: x_ptr; cuda: out_ptr\)"),
    ],
)
def test_a_data_ptr_array_names_its_device(path, device, message):
    kernel = _copy_kernel(backend="cpu")
    x = np.random.default_rng().standard_normal(N).astype(np.float32)
    _checked_copy(kernel, x, np.empty(N, np.float32))
    with pytest.raises(UsageError, match=message) as info:
        kernel[(1,)](x, OtherDeviceArray(device), N, BLOCK=N)
    assert "out_ptr" in str(info.value)


def test_a_cuda_array_to_a_cpu_backend_launch(path):
    kernel = _copy_kernel(backend="cpu")
    x = np.random.default_rng().standard_normal(N).astype(np.float32)
    _checked_copy(kernel, x, np.empty(N, np.float32))
    gpu = FakeCudaArray(np.empty(N, np.float32))
    for _ in range(2):
        with pytest.raises(UsageError, match="'cpu' backend was requested but arguments "
                           "x_ptr, out_ptr live on 'cuda'"):  # fmt: skip
            kernel[(1,)](FakeCudaArray(x), gpu, N, BLOCK=N)
        with pytest.raises(UsageError, match=r"different devices \(cpu: x_ptr; cuda: out_ptr\)"):
            kernel[(1,)](x, gpu, N, BLOCK=N)
    with config.override(backend="cpu"), pytest.raises(UsageError, match="live on 'cuda'"):
        _copy_kernel()[(1,)](FakeCudaArray(x), gpu, N, BLOCK=N)  # pinned by configuration


def test_a_host_array_to_a_cuda_backend_launch(path):
    """Refused before any CUDA driver is needed, so this runs on any machine."""
    kernel = _copy_kernel(backend="cuda")
    for host in (np.zeros(N, np.float32), torch.zeros(N)):
        with pytest.raises(UsageError, match="'cuda' backend was requested but arguments "
                           "x_ptr, out_ptr live on 'cpu'"):  # fmt: skip
            kernel[(1,)](host, host, N, BLOCK=N)


def _gpu() -> bool:
    return bool(torch.cuda.is_available())


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs an NVIDIA GPU and torch with CUDA")
def test_torch_tensors_on_the_other_device_on_a_gpu(path):
    x_host = torch.rand(N)
    x_gpu = x_host.cuda()
    cpu_kernel, gpu_kernel = _copy_kernel(backend="cpu"), _copy_kernel(backend="cuda")
    _checked_copy(cpu_kernel, x_host, torch.empty(N))
    out = torch.full((N,), float("nan"), device="cuda")
    gpu_kernel[(1,)](x_gpu, out, N, BLOCK=N)
    torch.testing.assert_close(out.cpu(), x_host)
    for _ in range(2):  # warm kernels of both backends
        with pytest.raises(UsageError, match=r"'cpu' backend .* live on 'cuda'"):
            cpu_kernel[(1,)](x_gpu, torch.empty(N, device="cuda"), N, BLOCK=N)
        with pytest.raises(UsageError, match=r"'cuda' backend .* live on 'cpu'"):
            gpu_kernel[(1,)](x_host, torch.empty(N), N, BLOCK=N)
        with pytest.raises(UsageError, match=r"different devices \(cpu: x_ptr; cuda: out_ptr\)"):
            cpu_kernel[(1,)](x_host, torch.empty(N, device="cuda"), N, BLOCK=N)
        with pytest.raises(UsageError, match="different devices"):
            _copy_kernel()[(1,)](x_gpu, torch.empty(N), N, BLOCK=N)
        with pytest.raises(UsageError, match="a 'meta' tensor"):
            gpu_kernel[(1,)](x_gpu, torch.empty(N, device="meta"), N, BLOCK=N)


def test_the_generic_torch_describer_with_empty_key_tables(monkeypatch):
    """The describer launch code built before ``import torch`` uses, before any tensor was
    seen: an empty key table is still the host table."""
    from tilec.runtime import describers

    monkeypatch.setattr(describers, "TORCH_HOST_KEYS", {})
    monkeypatch.setattr(describers, "TORCH_DEVICE_KEYS", {})
    t = torch.zeros(4)
    key, address = describers.describe(t)
    assert (key.device, str(key.element), address) == ("cpu", "fp32", t.data_ptr())
    with pytest.raises(UsageError, match="a 'meta' tensor"):
        describers.describe(torch.empty(4, device="meta"))
