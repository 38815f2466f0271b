"""The one error hierarchy: every exception tilec raises on purpose derives from TilecError.

Compile errors carry the SourceLoc of the offending kernel code; platform errors carry the same
Finding that ``tilec doctor`` prints; each class names the CLI exit code it maps to.
"""

from __future__ import annotations

from typing import Any

from .source import SourceLoc


class TilecError(Exception):
    """Base class of every deliberate tilec error."""

    exit_code = 1


class UsageError(TilecError):
    """Bad arguments to a tilec API or CLI command."""

    exit_code = 2


class IntegerOverflowError(UsageError, OverflowError):
    """An integer argument outside the range of its parameter's type (64 bits, or the type a
    parameter annotation fixes): an OverflowError too, as the native launcher and Triton raise."""


class LaunchArgumentError(UsageError, TypeError):
    """A kernel launch missing an argument: a TypeError too, as Python (and Triton) raise."""


class CompileOptionError(UsageError, AssertionError):
    """A launch option of the wrong type or range (``num_warps=3``): an AssertionError too, as
    Triton's option checks raise."""


class GlobalChangedError(UsageError, RuntimeError):
    """A launch after a global the kernel read changed: a RuntimeError too, as Triton raises."""


class CompileError(TilecError):
    """A problem in kernel source, reported at ``file:line:col`` with a caret."""

    def __init__(self, message: str, loc: SourceLoc | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(loc.render(message) if loc is not None else message)

    @property
    def error_message(self) -> str:
        """Triton's ``CompilationError.error_message``: the message without the source excerpt
        (hosts and tests read it)."""
        return self.message


class CompileTimeAssertionFailure(CompileError):
    """A ``tl.static_assert`` whose condition is false (Triton's class of the same name)."""


def with_cause(exc: CompileError) -> CompileError:
    """Give ``exc`` Triton's structure: a ``CompilationError`` whose ``__cause__`` is an error
    carrying the plain message (tests match the cause's text). Kept when a cause is set."""
    if exc.__cause__ is None:
        exc.__cause__ = type(exc)(exc.message)
    return exc


class UnsupportedSyntax(CompileError):
    """Python syntax that kernels may not use (rejected before any code is generated)."""


class TileTypeError(CompileError):
    """Type or shape errors: mismatched shapes, bad dtypes, non-power-of-2 ranges..."""


class ConstexprError(CompileError):
    """A value that must be known at compile time is not."""


class UnsupportedFeature(CompileError):
    """A language feature that tilec does not implement yet (never silently wrong)."""


class UnsupportedName(UnsupportedFeature, AttributeError):
    """A Triton name tilec does not provide; also an AttributeError, so ``hasattr`` is False."""


class LoweringError(TilecError):
    """A tilec bug: IR that a backend cannot lower. The IR is attached as a note."""

    def __init__(self, message: str, loc: SourceLoc | None = None, ir: str | None = None) -> None:
        self.message = message
        self.loc = loc
        super().__init__(loc.render(message) if loc is not None else message)
        self.ir = ir
        if ir and hasattr(self, "add_note"):  # Python >= 3.11
            self.add_note(ir)


class LaunchError(TilecError):
    """A kernel launch failed (driver error code, bad grid, bad argument)."""

    def __init__(self, message: str, code: int | None = None) -> None:
        self.code = code
        super().__init__(message)


class DeviceAssertError(LaunchError):
    """A ``tl.device_assert`` failed while the kernel ran."""


class OutOfBoundsError(LaunchError):
    """Bounds-checked mode (``debug=True``) caught an access outside its argument's memory.

    Names the kernel, the argument, the offending byte offset and the allowed range (both from
    the argument's base pointer), the program id and, rendered with a caret, the source line."""

    def __init__(
        self,
        message: str,
        *,
        kernel: str,
        argument: str,
        offset: int,
        allowed: tuple[int, int],
        program_id: tuple[int, int, int],
        loc: SourceLoc | None = None,
    ) -> None:
        self.kernel, self.argument, self.offset = kernel, argument, offset
        self.allowed, self.program_id, self.loc = allowed, program_id, loc
        super().__init__(loc.render(message) if loc is not None else message)


class CacheError(TilecError):
    """The kernel cache could not be read or written."""


class PlatformError(TilecError):
    """This machine cannot run the requested backend; carries the doctor's Finding."""

    def __init__(self, message: str, finding: Any = None) -> None:
        self.finding = finding
        super().__init__(message)


# Triton's names for the same classes: one hierarchy, two spellings
TritonError = TilecError
CompilationError = CompileError
InterpreterError = CompileError  # tilec compiles under TRITON_INTERPRET too
