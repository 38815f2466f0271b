"""The contract of bounds-checked kernels: the record they write and what the launch needs.

The bounds-check pass produces a :class:`BoundsInfo`, the backends write the record it describes,
and the runtime reads it after a launch; this module holds only that data, so a warm launch of a
cached checked kernel never imports the pass.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..source import SourceLoc

# Record codes of bounds violations start here; device_assert's codes are small positive ints
# (the CPU backend shares one status block between both).
BOUNDS_CODE = 1 << 32
RECORD_WORDS = 4  # code, linear program id, offending address, scratch word for CAS


class AccessKind(enum.Enum):
    LOAD = "load"
    STORE = "store"
    ATOMIC = "atomic"


@dataclass(frozen=True)
class BoundsSite:
    """One checked access: what it does, where, and which parameters its pointer may come from
    (positions in :attr:`BoundsInfo.pointers`)."""

    kind: AccessKind
    loc: SourceLoc
    candidates: tuple[int, ...]
    element: str  # the accessed element type, e.g. ``fp32``
    access_bytes: int


@dataclass(frozen=True)
class BoundsInfo:
    """What a checked kernel needs at launch: after its ``user_params`` runtime parameters come
    ``lo, hi`` for each of ``pointers`` (parameter names), the record, then ``scratch``
    pointers (one per element type compare-and-swap uses, all at the record's last word)."""

    user_params: int
    pointers: tuple[str, ...]
    sites: tuple[BoundsSite, ...]
    scratch: int = 0

    def site(self, code: int) -> BoundsSite | None:
        index = code - BOUNDS_CODE
        return self.sites[index] if 0 <= index < len(self.sites) else None
