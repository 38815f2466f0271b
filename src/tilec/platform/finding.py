"""What a check concludes: a Finding with a status and, when something is wrong, a Remediation.

The runtime raises ``PlatformError(message, finding)`` with the same Finding the doctor prints, so
``summary`` and ``remedy`` are plain text a user can act on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Status(enum.Enum):
    """Outcome of one check, ordered by severity."""

    OK = "ok"
    SKIP = "skip"
    WARN = "warn"
    FAIL = "fail"

    @property
    def severity(self) -> int:
        return _SEVERITY[self]


_SEVERITY = {Status.OK: 0, Status.SKIP: 0, Status.WARN: 1, Status.FAIL: 2}


class Category(enum.Enum):
    """The report's sections, in the order they are printed."""

    SYSTEM = "System"
    PYTHON = "Python"
    TILEC = "tilec install"
    CPU = "CPU backend"
    NVIDIA = "NVIDIA GPU"
    OTHER_GPU = "Other GPUs"
    SMOKE = "Smoke test"


@dataclass(frozen=True)
class Remediation:
    """What to do about a finding: an explanation and commands that can be pasted as they are."""

    text: str
    commands: tuple[str, ...] = ()

    def __str__(self) -> str:
        return "\n".join((self.text, *(f"  {c}" for c in self.commands)))


@dataclass(frozen=True)
class Finding:
    """One conclusion about this machine.

    ``check`` names the check that produced it (stable, used by tests and the JSON report);
    ``scenario`` is the row of the known-failure table (notes/platform.md §7) it recognises, or 0.
    """

    check: str
    category: Category
    status: Status
    summary: str
    details: tuple[str, ...] = ()
    remediation: Remediation | None = None
    scenario: int = 0

    @property
    def remedy(self) -> str:
        """The remediation as text ('' when there is nothing to do)."""
        return str(self.remediation) if self.remediation is not None else ""

    def __str__(self) -> str:
        return f"{self.summary}\n{self.remedy}" if self.remedy else self.summary


def make(
    check: str, category: Category, status: Status, summary: str, *details: str, **kw: object
) -> Finding:
    """A Finding with the empty detail lines dropped (checks build details conditionally)."""
    return Finding(check, category, status, summary, tuple(d for d in details if d), **kw)  # type: ignore[arg-type]
