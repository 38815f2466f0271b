"""Run-time debugging: device_print, device_assert and the bounds check of debug mode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import PointerType, element_of, int1, int64, with_element
from ._check import is_bool, require, same_shape


class PrintOp(Op):
    """Print ``prefix`` and each value (every element of tiles) from every program."""

    name = "print"
    has_side_effects = True

    def __init__(
        self, prefix: str, values: Sequence[Value], loc: SourceLoc | None = None, hex: bool = False
    ):
        super().__init__(list(values), [], loc)
        self.prefix = prefix
        self.hex = hex

    def attributes(self) -> dict[str, Any]:
        return {"prefix": self.prefix, **({"hex": True} if self.hex else {})}


class AssertOp(Op):
    """Fail the launch with ``message`` (and the source location) where ``cond`` is false."""

    name = "assert"
    has_side_effects = True

    def __init__(self, cond: Value, message: str, loc: SourceLoc | None = None):
        super().__init__([cond], [], loc)
        self.message = message

    def attributes(self) -> dict[str, Any]:
        return {"message": self.message}

    def verify(self) -> None:
        require(self, is_bool(self.operands[0].type), "assert condition must be i1")


class BoundsCheckOp(Op):
    """Check the active lanes of ``ptr`` against the byte extents ``[lo, hi)`` of the kernel
    arguments the pointer may derive from (bounds-checked mode, passes/bounds_check.py).

    Operands: ``ptr``, ``record`` (a ``*i64`` error record), the ``lo, hi`` pairs (i64 byte
    addresses, one pair per candidate argument), then the access's ``mask`` if it has one. The
    result is an i1 of ``ptr``'s shape: the lanes the access may still perform. The first
    violation stores ``(code, linear program id, address)`` into the record; backends either
    leave the program or turn the offending lanes off, so the access never leaves its extent."""

    name = "bounds_check"
    has_side_effects = True

    def __init__(
        self,
        ptr: Value,
        record: Value,
        extents: Sequence[Value],
        mask: Value | None,
        code: int,
        access_bytes: int,
        loc: SourceLoc | None = None,
    ):
        super().__init__(
            [ptr, record, *extents, *([mask] if mask is not None else [])],
            [with_element(ptr.type, int1)],
            loc,
        )
        self.n_extents = len(extents) // 2
        self.code = code
        self.access_bytes = access_bytes

    @property
    def ptr(self) -> Value:
        return self.operands[0]

    @property
    def record(self) -> Value:
        return self.operands[1]

    @property
    def extents(self) -> list[tuple[Value, Value]]:
        flat = self.operands[2 : 2 + 2 * self.n_extents]
        return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]

    @property
    def mask(self) -> Value | None:
        return self.operands[-1] if len(self.operands) > 2 + 2 * self.n_extents else None

    def attributes(self) -> dict[str, Any]:
        return {"code": self.code, "bytes": self.access_bytes}

    def verify(self) -> None:
        require(self, isinstance(element_of(self.ptr.type), PointerType), "ptr must be pointers")
        require(self, self.record.type == PointerType(int64), "record must be a scalar *i64")
        require(self, self.n_extents >= 1, "needs at least one extent")
        for lo, hi in self.extents:
            require(self, lo.type == hi.type == int64, "extents must be scalar i64")
        if self.mask is not None:
            require(self, is_bool(self.mask.type), "mask must be i1")
            same_shape(self, self.ptr, self.mask)
        require(self, self.access_bytes >= 1, "access must have a size")
