"""Triton's ``triton.runtime.driver``: ``driver.active`` answers host-code questions.

``driver.active`` is chosen on first use (TILEC_BACKEND, else the GPU when usable, else the
CPU) and offers Triton's methods: get_current_target, get_current_device,
get_current_stream, get_active_torch_device, get_device_interface and
utils.get_device_properties. ``set_active`` / ``reset_active`` override the choice.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from .. import config
from ..errors import PlatformError, UsageError


@dataclass(frozen=True)
class GPUTarget:
    """Triton's target triple: ``backend`` ("cuda" / "cpu"), ``arch`` (90 for sm_90), warp size."""

    backend: str
    arch: int | str
    warp_size: int


def _torch(what: str) -> Any:
    torch = sys.modules.get("torch")
    if torch is None:
        raise UsageError(f"{what} returns a torch object: import torch first")
    return torch


def _registry_driver(kind: str) -> Any:
    from ..backends import registry

    return registry.get(kind).driver


_CPU_FLUSH_BYTES = 64 << 20


class CpuUtils:
    def get_device_properties(self, device: int | None = 0) -> dict[str, Any]:
        """Triton's property names with the CPU meanings of occupancy.py: a multiprocessor is
        a worker thread, ``max_shared_mem`` the stack each program's tile buffers live on and
        ``max_num_regs`` a core's SIMD registers × Triton's largest num_warps (warpSize 1), so
        ``max_num_regs // (n_regs * warpSize * num_warps)`` is at least one program per core."""
        from . import occupancy

        target = _registry_driver("cpu").current_target()
        return {
            "multiprocessor_count": config.get().num_threads or os.cpu_count() or 1,
            "max_shared_mem": occupancy.PROGRAM_STACK_BYTES,
            "max_num_regs": occupancy.max_num_regs(target),
            "warpSize": 1,
            "sm_clock_rate": 0,
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
        }


class CpuDriver:
    """The host: one device, no streams."""

    backend = "cpu"

    def __init__(self) -> None:
        self.utils = CpuUtils()

    def get_current_target(self) -> GPUTarget:
        return GPUTarget("cpu", _registry_driver("cpu").current_target().arch, 1)

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        if device != 0:
            raise UsageError(f"the CPU backend has one device (0), not {device}")

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_active_torch_device(self) -> Any:
        return _torch("get_active_torch_device").device("cpu")

    def get_device_interface(self) -> Any:
        return _torch("get_device_interface").cpu

    def get_empty_cache_for_benchmark(self) -> Any:
        """A buffer larger than the last-level cache; ``clear_cache`` writes it to evict."""
        import numpy as np

        return np.empty(_CPU_FLUSH_BYTES, np.uint8)

    def clear_cache(self, cache: Any) -> None:
        cache.fill(0)


_ATTRIBUTES = {
    "multiprocessor_count": "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
    "max_shared_mem": "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "max_num_regs": "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK",
    "warpSize": "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
    "sm_clock_rate": "CU_DEVICE_ATTRIBUTE_CLOCK_RATE",
    "mem_clock_rate": "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE",
    "mem_bus_width": "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH",
}


class CudaUtils:
    def get_device_properties(self, device: int = 0) -> dict[str, Any]:
        """Triton's property names, read with cuDeviceGetAttribute."""
        from cuda.bindings import driver as cu

        cu.cuInit(0)
        err, dev = cu.cuDeviceGet(int(device))
        if int(err) != 0:
            raise PlatformError(f"CUDA device {device} is not available: {err!r}")
        props: dict[str, Any] = {}
        for name, attr in _ATTRIBUTES.items():
            err, value = cu.cuDeviceGetAttribute(getattr(cu.CUdevice_attribute, attr), dev)
            props[name] = int(value) if int(err) == 0 else 0
        return props


class CudaDriver:
    """An NVIDIA GPU through the CUDA driver; devices and streams follow torch when imported."""

    backend = "cuda"

    def __init__(self) -> None:
        self.utils = CudaUtils()

    def get_current_target(self) -> GPUTarget:
        arch = str(_registry_driver("cuda").current_target().arch)  # "sm_90a"
        digits = "".join(ch for ch in arch if ch.isdigit())
        return GPUTarget("cuda", int(digits) if digits else arch, 32)

    def get_current_device(self) -> int:
        torch = sys.modules.get("torch")
        return int(torch.cuda.current_device()) if torch is not None else 0

    def set_current_device(self, device: int) -> None:
        _torch("set_current_device").cuda.set_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        from .kernel import _torch_stream

        return _torch_stream()

    def get_active_torch_device(self) -> Any:
        torch = _torch("get_active_torch_device")
        return torch.device("cuda", self.get_current_device())

    def get_device_interface(self) -> Any:
        return _torch("get_device_interface").cuda

    def get_empty_cache_for_benchmark(self) -> Any:
        """256 MiB on the GPU (torch), larger than any L2; ``clear_cache`` zeroes it."""
        torch = _torch("get_empty_cache_for_benchmark")
        return torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def clear_cache(self, cache: Any) -> None:
        cache.zero_()


Driver = CpuDriver | CudaDriver
_active: Driver | None = None


def _choose() -> Driver:
    cfg = config.get()
    kind = cfg.backend or ("cpu" if cfg.interpret else None)
    if kind is None:
        try:
            kind = "cuda" if _registry_driver("cuda").is_available() else "cpu"
        except Exception:  # a broken CUDA install still leaves the CPU usable
            kind = "cpu"
    return CudaDriver() if kind == "cuda" else CpuDriver()


def set_active(driver: Driver) -> None:
    """Use ``driver`` until ``reset_active``."""
    global _active
    _active = driver


def reset_active() -> None:
    """Choose the active driver again on next use."""
    global _active
    _active = None


def __getattr__(name: str) -> Any:
    if name == "active":
        global _active
        if _active is None:
            _active = _choose()
        return _active
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
