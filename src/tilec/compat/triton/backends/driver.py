"""``triton.backends.driver``: driver classes with Triton's ``is_active``, over tilec's drivers.

Hosts pick a backend with ``backends[name].driver.is_active()`` and make it current with
``triton.runtime.driver.set_active(backends[name].driver())``.
"""

from __future__ import annotations

from ....backends import registry
from ....errors import TilecError
from ....runtime import driver as _driver


class DriverBase:
    """Triton's driver base: tilec's drivers derive from it only here, for ``isinstance``."""

    @classmethod
    def is_active(cls) -> bool:
        raise NotImplementedError


class CpuDriver(_driver.ActiveDriver, DriverBase):
    def __init__(self) -> None:
        super().__init__("cpu")

    @classmethod
    def is_active(cls) -> bool:
        return True  # the host is always there


class CudaDriver(_driver.ActiveDriver, DriverBase):
    def __init__(self) -> None:
        super().__init__("cuda")

    @classmethod
    def is_active(cls) -> bool:
        try:
            return bool(registry.get("cuda").driver.is_available())
        except TilecError:
            return False
