"""Triton's ``triton.runtime.driver``: ``driver.active`` answers host-code questions.

``driver.active`` is chosen on first use (TILEC_BACKEND, else the GPU when usable, else the
CPU: registry.default) and offers Triton's methods: get_current_target, get_current_device,
get_current_stream, get_active_torch_device, get_device_interface and
utils.get_device_properties, each answered by that backend's driver. ``set_active`` /
``reset_active`` override the choice.
"""

from __future__ import annotations

import sys
from typing import Any

from ..backends import registry
from ..backends.base import Driver, GPUTarget
from ..errors import UsageError

__all__ = ["ActiveDriver", "GPUTarget", "reset_active", "set_active"]


def _torch(what: str) -> Any:
    torch = sys.modules.get("torch")
    if torch is None:
        raise UsageError(f"{what} returns a torch object: import torch first")
    return torch


class _Utils:
    def __init__(self, backend: str) -> None:
        self._backend = backend

    def get_device_properties(self, device: int | None = 0) -> dict[str, Any]:
        return registry.get(self._backend).driver.device_properties(device or 0)


class ActiveDriver:
    """Triton's driver object over one backend's driver (``backend``: its registry name)."""

    def __init__(self, backend: str) -> None:
        self.backend = registry.check_name(backend)
        self.utils = _Utils(backend)

    @property
    def _driver(self) -> Driver:
        return registry.get(self.backend).driver

    def get_current_target(self) -> GPUTarget:
        return self._driver.gpu_target()

    def get_current_device(self) -> int:
        return int(self._driver.current_device())

    def set_current_device(self, device: int) -> None:
        self._driver.set_current_device(device)

    def get_current_stream(self, device: int | None = None) -> int:
        return int(self._driver.current_stream(device))

    def get_active_torch_device(self) -> Any:
        return self._driver.active_torch_device(_torch("get_active_torch_device"))

    def get_device_interface(self) -> Any:
        return getattr(_torch("get_device_interface"), self._driver.torch_device)

    def get_empty_cache_for_benchmark(self) -> Any:
        return self._driver.empty_cache_for_benchmark()

    def clear_cache(self, cache: Any) -> None:
        self._driver.clear_cache(cache)


_active: ActiveDriver | None = None


def _choose() -> ActiveDriver:
    return ActiveDriver(registry.forced() or registry.default())


def set_active(driver: ActiveDriver) -> None:
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
