"""Atomic builtins: add, max, min, and, or, xor, xchg (with masks) and compare-and-swap."""

from __future__ import annotations

from typing import Any

from ..errors import TileTypeError
from ..ir import types as T
from ..ir.ops import AtomicKind, MemoryScope, MemorySemantic, Ordering
from ..ir.types import ScalarType
from . import semantics as S
from .builtin import builtin
from .const_pointers import check_writable
from .pointers import _check_fits, _mask, _pointer
from .values import Tensor, unwrap

# -- atomics -------------------------------------------------------------------------------


def _ordering(sem: Any, scope: Any) -> Ordering:
    s, sc = unwrap(sem) or "acq_rel", unwrap(scope) or "gpu"
    sems, scopes = [m.value for m in MemorySemantic], [m.value for m in MemoryScope]
    if s not in sems:
        raise TileTypeError(f"sem {s!r} is not supported; use one of {sems}")
    if sc not in scopes:
        raise TileTypeError(f"scope {sc!r} is not supported; use one of {scopes}")
    return Ordering(MemorySemantic(s), MemoryScope(sc))


def _atomic_operands(
    ctx: Any, pointer: Any, val: Any, mask: Any, what: str
) -> tuple[Tensor, Tensor, Tensor | None]:
    check_writable(ctx.unit, pointer)
    ptr = _pointer(pointer, what)
    elem = ptr.dtype.element  # type: ignore[union-attr]
    if not isinstance(elem, ScalarType) or elem.is_bool():
        raise TileTypeError(f"{what} does not support {elem} elements")
    v = unwrap(val)
    v = v if isinstance(v, Tensor) else S.constant(ctx.b, v, elem)
    if v.shape and not ptr.shape:
        raise TileTypeError(f"{what}: a tile value needs a tile of pointers")
    _check_fits(v, ptr, f"{what}'s value")  # as in Triton, the pointers never widen
    v = S.broadcast_to(ctx.b, S.cast(ctx.b, v, elem), ptr.shape)
    m = _mask(ctx, mask, ptr.shape, f"{what}'s mask")
    return ptr, v, m


def _check_rmw_element(ptr: Any, name: str) -> None:
    """Triton's rule: read-modify-write atomics need 32/64-bit elements (fp16 and bf16 only
    for atomic_add)."""
    elem = _pointer(ptr, name).dtype.element  # type: ignore[union-attr]
    if not isinstance(elem, ScalarType):
        return
    if elem.bits < 16 or elem in (T.int16, T.uint16):
        raise TileTypeError(f"{name} does not support {elem}")
    if elem in (T.float16, T.bfloat16) and name != "atomic_add":
        raise TileTypeError(f"{name} does not support {elem}")


def _rmw(kind: AtomicKind, name: str, ints_only: bool = False) -> Any:
    def impl(
        ctx: Any, pointer: Any, val: Any, mask: Any = None, sem: Any = None, scope: Any = None
    ) -> Tensor:
        _check_rmw_element(pointer, name)
        ptr, v, m = _atomic_operands(ctx, pointer, val, mask, name)
        if ints_only and not v.dtype.is_int():
            raise TileTypeError(f"{name} needs integer elements, got {v.dtype}")
        order = _ordering(sem, scope)
        return Tensor(
            ctx.b.atomic_rmw(kind, ptr.value, v.value, m.value if m is not None else None, order)
        )

    impl.__doc__ = f"Atomic {kind.value}: returns the old values."
    return builtin(name, member=True)(impl)


atomic_add = _rmw(AtomicKind.ADD, "atomic_add")

atomic_max = _rmw(AtomicKind.MAX, "atomic_max")

atomic_min = _rmw(AtomicKind.MIN, "atomic_min")

atomic_and = _rmw(AtomicKind.AND, "atomic_and", ints_only=True)

atomic_or = _rmw(AtomicKind.OR, "atomic_or", ints_only=True)

atomic_xor = _rmw(AtomicKind.XOR, "atomic_xor", ints_only=True)

atomic_xchg = _rmw(AtomicKind.XCHG, "atomic_xchg")


@builtin(member=True)
def atomic_cas(
    ctx: Any, pointer: Any, cmp: Any, val: Any, sem: Any = None, scope: Any = None
) -> Tensor:
    """Atomic compare-and-swap: returns the old values."""
    ptr, v, _ = _atomic_operands(ctx, pointer, val, None, "atomic_cas")
    ptr, c, _ = _atomic_operands(ctx, ptr, cmp, None, "atomic_cas")
    if v.shape != ptr.shape:
        v = S.broadcast_to(ctx.b, v, ptr.shape)
    return Tensor(ctx.b.atomic_cas(ptr.value, c.value, v.value, _ordering(sem, scope)))
