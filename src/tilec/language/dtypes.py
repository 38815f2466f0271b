"""Triton's ``tl.dtype`` class surface and ``tl.str_to_ty`` over tilec's one type system.

tilec's dtypes are the IR's ScalarType instances; ``tl.dtype`` is the class Triton code names
them by: ``isinstance(x, tl.dtype)`` is true for every ScalarType, ``tl.dtype("int8")`` returns
``tl.int8`` itself (not a copy), and the name lists (``SINT_TYPES``...) hold Triton's spellings.
``str_to_ty`` reads Triton's signature spellings (``"*fp32"``, ``"i32"``, ``"u1"``).
"""

from __future__ import annotations

from typing import Any

from ..errors import UnsupportedName, UsageError
from ..ir import types as ir

_FLOATS = ("fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64")


def _by_triton_name() -> dict[str, ir.ScalarType]:
    return {t.name: t for t in (*ir.SCALAR_TYPES, *ir.UNSUPPORTED_TYPES)}


class _DtypeMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, ir.ScalarType)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or issubclass(sub, ir.ScalarType)

    def __call__(cls, name: str) -> ir.ScalarType:  # type: ignore[override]
        """``tl.dtype("int8")``: the dtype Triton names so."""
        if name == "void":
            raise UnsupportedName("tl.dtype('void') is not supported by tilec")
        found = _by_triton_name().get(name)
        if found is None:
            known = ", ".join([*cls.SINT_TYPES, *cls.UINT_TYPES, *cls.FP_TYPES])  # type: ignore[attr-defined]
            raise UsageError(f"tl.dtype({name!r}): unknown type name; Triton's names are {known}")
        return found


class dtype(metaclass=_DtypeMeta):
    """Triton's dtype class: every tilec scalar type is an instance."""

    SINT_TYPES = ("int8", "int16", "int32", "int64")
    UINT_TYPES = ("int1", "uint8", "uint16", "uint32", "uint64")
    FP_TYPES = _FLOATS
    STANDARD_FP_TYPES = ("fp16", "bf16", "fp32", "fp64")
    OTHER_TYPES = ("void",)


class _BlockTypeMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, ir.TileType)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or issubclass(sub, ir.TileType)

    def __call__(cls, element_ty: Any, shape: Any) -> ir.TileType:  # type: ignore[override]
        """``tl.block_type(tl.float16, [16, 32])``: Triton's argument order (element first)."""
        return ir.TileType(tuple(int(d) for d in shape), element_ty)


class block_type(metaclass=_BlockTypeMeta):
    """Triton's block type class: every tilec tile type is an instance."""


# Triton's signature spellings that are not a tl dtype name
_SHORT: dict[str, ir.ScalarType] = {"u1": ir.int1, "B": ir.int1}


def str_to_ty(name: Any, c: Any = None) -> Any:
    """The type a Triton signature string names: ``"*fp32"`` (``"*k..."`` const) a pointer,
    ``"fp16"``/``"i32"``/``"u8"``/``"u1"`` a scalar, ``"constexpr"`` the constexpr's type;
    tuples of names give tuples of types."""
    if isinstance(name, tuple):
        return tuple(str_to_ty(n, c) for n in name)
    if not isinstance(name, str) or not name:
        raise UsageError(f"str_to_ty: expected a type name such as 'fp32' or '*i32', got {name!r}")
    if name[0] == "*":
        inner = name[2:] if name[1:2] == "k" else name[1:]
        return ir.PointerType(str_to_ty(inner, c))
    if name.startswith(("constexpr", "tensordesc")):
        raise UnsupportedName(f"str_to_ty({name!r}): constexpr and descriptor types by name")
    found = ir.BY_NAME.get(name) or _SHORT.get(name) or _by_triton_name().get(name)
    if found is None:
        raise UsageError(f"str_to_ty: unknown type name {name!r}")
    return found


pi32_t = ir.PointerType(ir.int32)
