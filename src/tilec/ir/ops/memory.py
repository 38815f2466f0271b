"""Pointer arithmetic, loads, stores and atomics (scalar or tile pointers, optional masks)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import PointerType, ScalarType, Type, element_of, with_element
from ._check import is_bool, require, same_shape


def _pointee(ptr: Value) -> Type:
    elem = element_of(ptr.type)
    assert isinstance(elem, PointerType), f"expected pointers, got {elem}"
    return with_element(ptr.type, elem.element)


class AddPtrOp(Op):
    """``ptr + offset`` in elements of the pointee type (offset: any integer type)."""

    name = "addptr"

    def __init__(self, ptr: Value, offset: Value, loc: SourceLoc | None = None):
        super().__init__([ptr, offset], [ptr.type], loc)

    def verify(self) -> None:
        ptr, off = self.operands
        require(
            self, isinstance(element_of(ptr.type), PointerType), "first operand must be pointers"
        )
        e = element_of(off.type)
        require(self, isinstance(e, ScalarType) and e.is_int(), f"offset must be integers, got {e}")
        same_shape(self, ptr, off)


class _Cached(Op):
    """Shared attributes of loads and stores: cache and eviction hints (accepted, advisory)."""

    cache: str
    eviction: str

    def _hint_attrs(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        if self.cache:
            attrs["cache"] = self.cache
        if self.eviction:
            attrs["eviction"] = self.eviction
        return attrs


class LoadOp(_Cached):
    """Load through ``ptr`` where ``mask`` is true; elsewhere the result is ``other`` (or undefined)."""

    name = "load"

    def __init__(
        self,
        ptr: Value,
        mask: Value | None = None,
        other: Value | None = None,
        loc: SourceLoc | None = None,
        cache: str = "",
        eviction: str = "",
        volatile: bool = False,
    ):
        operands = (
            [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])
        )
        super().__init__(operands, [_pointee(ptr)], loc)
        self.has_mask = mask is not None
        self.has_other = other is not None
        self.cache = cache
        self.eviction = eviction
        self.volatile = volatile

    @property
    def ptr(self) -> Value:
        return self.operands[0]

    @property
    def mask(self) -> Value | None:
        return self.operands[1] if self.has_mask else None

    @property
    def other(self) -> Value | None:
        return self.operands[-1] if self.has_other else None

    def attributes(self) -> dict[str, Any]:
        return {**self._hint_attrs(), **({"volatile": True} if self.volatile else {})}

    def verify(self) -> None:
        if self.mask is not None:
            require(self, is_bool(self.mask.type), "mask must be i1")
            same_shape(self, self.ptr, self.mask)
        if self.other is not None:
            require(
                self,
                self.other.type == self.results[0].type,
                f"other has type {self.other.type}, expected {self.results[0].type}",
            )


class StoreOp(_Cached):
    """Store ``value`` through ``ptr`` where ``mask`` is true."""

    name = "store"
    has_side_effects = True

    def __init__(
        self,
        ptr: Value,
        value: Value,
        mask: Value | None = None,
        loc: SourceLoc | None = None,
        cache: str = "",
        eviction: str = "",
    ):
        super().__init__([ptr, value] + ([mask] if mask is not None else []), [], loc)
        self.cache = cache
        self.eviction = eviction

    @property
    def ptr(self) -> Value:
        return self.operands[0]

    @property
    def value(self) -> Value:
        return self.operands[1]

    @property
    def mask(self) -> Value | None:
        return self.operands[2] if len(self.operands) > 2 else None

    def attributes(self) -> dict[str, Any]:
        return self._hint_attrs()

    def verify(self) -> None:
        require(
            self,
            self.value.type == _pointee(self.ptr),
            f"stores {self.value.type} through {self.ptr.type}",
        )
        if self.mask is not None:
            require(self, is_bool(self.mask.type), "mask must be i1")
            same_shape(self, self.ptr, self.mask)


class AtomicKind(enum.Enum):
    ADD = "add"  # integer or float add
    MAX = "max"
    MIN = "min"
    AND = "and"
    OR = "or"
    XOR = "xor"
    XCHG = "xchg"


class MemorySemantic(enum.Enum):
    """What an atomic orders around itself (tl's ``sem=``)."""

    ACQ_REL = "acq_rel"
    ACQUIRE = "acquire"
    RELEASE = "release"
    RELAXED = "relaxed"


class MemoryScope(enum.Enum):
    """Which threads an atomic is atomic and ordered with (tl's ``scope=``)."""

    GPU = "gpu"
    CTA = "cta"
    SYS = "sys"


@dataclass(frozen=True)
class Ordering:
    """An atomic's memory semantic and scope (Triton's defaults: acq_rel, gpu)."""

    sem: MemorySemantic = MemorySemantic.ACQ_REL
    scope: MemoryScope = MemoryScope.GPU

    def attributes(self) -> dict[str, Any]:
        return {"sem": self.sem.value, "scope": self.scope.value}


DEFAULT_ORDERING = Ordering()


class AtomicRMWOp(Op):
    """Atomically combine ``value`` into memory at ``ptr`` (where ``mask``); returns the old
    values, ordered by ``ordering``."""

    name = "atomic_rmw"
    has_side_effects = True

    def __init__(
        self,
        kind: AtomicKind,
        ptr: Value,
        value: Value,
        mask: Value | None = None,
        loc: SourceLoc | None = None,
        ordering: Ordering = DEFAULT_ORDERING,
    ):
        super().__init__([ptr, value] + ([mask] if mask is not None else []), [value.type], loc)
        self.kind = kind
        self.ordering = ordering

    @property
    def mask(self) -> Value | None:
        return self.operands[2] if len(self.operands) > 2 else None

    def attributes(self) -> dict[str, Any]:
        return {"kind": self.kind.value, **self.ordering.attributes()}

    def verify(self) -> None:
        ptr, val = self.operands[:2]
        require(self, val.type == _pointee(ptr), f"atomic of {val.type} through {ptr.type}")
        if self.mask is not None:
            require(self, is_bool(self.mask.type), "mask must be i1")


class AtomicCASOp(Op):
    """Atomic compare-and-swap: where memory equals ``cmp`` write ``value``; returns the old values."""

    name = "atomic_cas"
    has_side_effects = True

    def __init__(
        self,
        ptr: Value,
        cmp: Value,
        value: Value,
        loc: SourceLoc | None = None,
        ordering: Ordering = DEFAULT_ORDERING,
    ):
        super().__init__([ptr, cmp, value], [value.type], loc)
        self.ordering = ordering

    def attributes(self) -> dict[str, Any]:
        return self.ordering.attributes()

    def verify(self) -> None:
        ptr, cmp, val = self.operands
        require(self, cmp.type == val.type == _pointee(ptr), "cas operand types differ")
