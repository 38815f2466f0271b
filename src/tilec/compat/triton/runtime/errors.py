"""``triton.runtime.errors``: Triton's run-time error names in tilec's hierarchy.

tilec sizes nothing against a device limit at compile time (a launch fails with LaunchError),
so OutOfResources and PTXASError exist for hosts that catch them around ``triton.compile``.
"""

from __future__ import annotations

from ....errors import CompileError, LaunchError

InterpreterError = CompileError


class OutOfResources(LaunchError):
    """Triton's: a kernel needs more of a resource (shared memory, registers) than exists."""

    def __init__(self, required: int, limit: int, name: str) -> None:
        self.required, self.limit, self.name = required, limit, name
        super().__init__(f"out of resource: {name}, required: {required}, hardware limit: {limit}")

    def __reduce__(self) -> tuple[type, tuple[int, int, str]]:
        return type(self), (self.required, self.limit, self.name)


class PTXASError(LaunchError):
    """Triton's: the PTX assembler failed."""


class IntelGPUError(LaunchError):
    """Triton's name for an Intel GPU failure; tilec has no Intel backend."""
