"""``triton.runtime.driver``: Triton's ``driver`` object (``active``, ``set_active``,
``reset_active``, ``default``) over tilec's one active-driver choice (tilec.runtime.driver).

The module answers the same names itself, because importing ``triton.runtime.driver`` binds
this module, not the object, to ``triton.runtime.driver``.
"""

from __future__ import annotations

from typing import Any

from ....runtime import driver as _driver


class DriverConfig:
    """Triton's ``triton.runtime.driver.driver``."""

    @property
    def active(self) -> Any:
        return _driver.active  # type: ignore[attr-defined]

    @property
    def default(self) -> Any:
        return _driver._choose()

    def set_active(self, driver: Any) -> None:
        _driver.set_active(driver)

    def reset_active(self) -> None:
        _driver.reset_active()


driver = DriverConfig()
set_active = driver.set_active
reset_active = driver.reset_active


def __getattr__(name: str) -> Any:
    if name in ("active", "default"):
        return getattr(driver, name)
    raise AttributeError(f"module 'triton.runtime.driver' (tilec) has no attribute {name!r}")
