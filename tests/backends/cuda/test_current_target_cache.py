"""CudaDriver.current_target asks the driver once per device and requested PTX version: programs
call it on every launch (Triton's tutorials do, through ``is_hip()``), and the queries behind it
cost ~100 µs. Runs without a GPU, against a stand-in for cuda-bindings that counts its calls."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from tilec import config
from tilec.backends.cuda import driver as cuda_driver
from tilec.errors import PlatformError

OK = 0


class FakeDriverApi:
    """The cuda-bindings calls current_target makes; devices 0 and 1 are sm_90 and sm_80."""

    CUresult = SimpleNamespace(CUDA_SUCCESS=OK)
    CUdevice_attribute = SimpleNamespace(
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="major",
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="minor",
    )
    CAPABILITY = {0: (9, 0), 1: (8, 0)}

    def __init__(self, devices: int = 2) -> None:
        self.calls: Counter[str] = Counter()
        self.devices = devices
        self.context_device: int | None = 0

    def _count(self, name: str) -> None:
        self.calls[name] += 1

    def cuInit(self, flags: int) -> tuple[int]:
        self._count("cuInit")
        return (OK,)

    def cuDeviceGetCount(self) -> tuple[int, int]:
        self._count("cuDeviceGetCount")
        return OK, self.devices

    def cuCtxGetDevice(self) -> tuple[int, int]:
        self._count("cuCtxGetDevice")
        return (OK, self.context_device) if self.context_device is not None else (201, 0)

    def cuDeviceGet(self, ordinal: int) -> tuple[int, int]:
        self._count("cuDeviceGet")
        return OK, ordinal

    def cuDeviceGetAttribute(self, attr: str, dev: int) -> tuple[int, int]:
        self._count("cuDeviceGetAttribute")
        return OK, self.CAPABILITY[dev][0 if attr == "major" else 1]

    def cuDriverGetVersion(self) -> tuple[int, int]:
        self._count("cuDriverGetVersion")
        return OK, 13000


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> FakeDriverApi:
    fake = FakeDriverApi()
    monkeypatch.setattr(cuda_driver, "_cu", lambda: fake)
    monkeypatch.setattr(cuda_driver, "current_torch_device", lambda: None)  # no torch CUDA
    return fake


def test_the_driver_is_asked_once_per_device(api: FakeDriverApi) -> None:
    drv = cuda_driver.CudaDriver()
    first = drv.current_target()
    assert first.arch == "sm_90a"
    queried = api.calls["cuDeviceGetAttribute"]
    assert queried == 2
    for _ in range(100):
        assert drv.current_target() == first
    assert api.calls["cuDeviceGetAttribute"] == queried  # answered from the cache
    assert api.calls["cuDriverGetVersion"] == 1
    api.context_device = 1  # another device's context made current: its own target
    second = drv.current_target()
    assert second.arch == "sm_80" and api.calls["cuDeviceGetAttribute"] == 4


def test_a_requested_ptx_version_is_part_of_the_key(api: FakeDriverApi) -> None:
    drv = cuda_driver.CudaDriver()
    plain = drv.current_target()
    with config.override(ptx_version=85):
        pinned = drv.current_target()
    assert pinned.ptx_version == 85 and plain.ptx_version != 85
    assert drv.current_target() == plain


def test_no_device_still_raises_every_time(api: FakeDriverApi) -> None:
    api.devices, api.context_device = 0, None
    drv = cuda_driver.CudaDriver()
    for _ in range(2):
        with pytest.raises(PlatformError, match="no CUDA device"):
            drv.current_target()
