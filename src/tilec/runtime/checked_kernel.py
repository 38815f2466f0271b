"""Debug mode's launch path: which launches compile bounds-checked kernels, and how the
argument objects reach them (kernel.CheckedKernel reads each one's memory extent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import config


def debug_mode(jit: Any) -> bool:
    """Whether launches of ``jit`` (a JITFunction) compile bounds-checked kernels by default."""
    return bool(jit.debug if jit.debug is not None else config.get().debug)


class BoundLaunch:
    """A checked kernel with the argument objects of one launch that reached it through the
    address-only path (the launch right after a configuration switch turned debug mode on)."""

    def __init__(self, kernel: Any, arguments: dict[str, Any]) -> None:
        self.kernel, self.arguments = kernel, arguments

    def launch(self, grid: Any, *values: Any) -> None:
        self.kernel.launch_checked(grid, values, self.arguments)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def checked_launch(launch: Callable[..., Any]) -> Callable[..., Any]:
    """A JITFunction's launch function in debug mode: every launch takes the keyword path,
    which hands the argument objects to the kernel (``debug=False`` at launch opts out)."""

    def debug_launch(grid: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("debug", True)
        return launch(grid, *args, **kwargs)

    debug_launch.__name__ = debug_launch.__qualname__ = getattr(launch, "__name__", "kernel")
    return debug_launch
