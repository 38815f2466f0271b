"""The values a kernel's code manipulates while it is compiled.

A ``Tensor`` is a run-time value (a scalar or a tile) backed by an IR Value; everything else a
name can hold (ints, floats, dtypes, functions, tuples) is a compile-time constant and stays a
plain Python object. Block pointers and tensor descriptors are frontend-level structs of
Tensors; ``leaves``/``rebuild`` flatten any of these to IR values for if/loop merging.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..constexpr import constexpr
from ..errors import ConstexprError, TileTypeError
from ..ir.core import Value
from ..ir.types import Element, TileType, Type, element_of, shape_of

# Triton's TRITON_MAX_TENSOR_NUMEL: bigger tiles are rejected before any code is generated
# (a backend would otherwise try to build a multi-gigabyte buffer or loop for minutes).
MAX_TILE_NUMEL = 1 << 20


class Tensor:
    """A run-time scalar or tile: the kernel-side ``tl.tensor``."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        t = value.type
        if type(t) is TileType and t.numel > MAX_TILE_NUMEL:
            raise TileTypeError(
                f"a tile of shape {list(t.shape)} has {t.numel} elements, more than the "
                f"maximum of {MAX_TILE_NUMEL} (2**20, as in Triton)"
            )
        self.value = value

    @property
    def type(self) -> Type:
        return self.value.type

    @property
    def dtype(self) -> Element:
        return element_of(self.value.type)

    @property
    def shape(self) -> tuple[int, ...]:
        return shape_of(self.value.type)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_tile(self) -> bool:
        return bool(self.shape)

    def __repr__(self) -> str:
        return f"<tensor {self.type}>"

    def __bool__(self) -> bool:
        raise ConstexprError("the truth value of a run-time tensor is not known at compile time")


@dataclass(frozen=True)
class BlockPointer:
    """``tl.make_block_ptr``: a window of ``block_shape`` into a strided N-d array."""

    base: Tensor
    shape: tuple[Tensor, ...]  # i64
    strides: tuple[Tensor, ...]  # i64
    offsets: tuple[Tensor, ...]  # i32
    block_shape: tuple[int, ...]
    order: tuple[int, ...]

    @property
    def dtype(self) -> Element:
        return self.base.dtype

    def fields(self) -> list[Any]:
        return [self.base, *self.shape, *self.strides, *self.offsets]

    def with_fields(self, values: list[Any]) -> BlockPointer:
        n = len(self.block_shape)
        return replace(
            self,
            base=values[0],
            shape=tuple(values[1 : 1 + n]),
            strides=tuple(values[1 + n : 1 + 2 * n]),
            offsets=tuple(values[1 + 2 * n :]),
        )


@dataclass(frozen=True)
class TensorDescriptor:
    """``tl.make_tensor_descriptor``: a strided N-d array read and written in fixed blocks."""

    base: Tensor
    shape: tuple[Tensor, ...]  # i64
    strides: tuple[Tensor, ...]  # i64
    block_shape: tuple[int, ...]
    padding: str = "zero"

    @property
    def dtype(self) -> Element:
        return self.base.dtype

    def fields(self) -> list[Any]:
        return [self.base, *self.shape, *self.strides]

    def with_fields(self, values: list[Any]) -> TensorDescriptor:
        n = len(self.block_shape)
        return replace(
            self, base=values[0], shape=tuple(values[1 : 1 + n]), strides=tuple(values[1 + n :])
        )


Struct = (BlockPointer, TensorDescriptor)


def is_aggregate(x: Any) -> bool:
    """An instance of a ``@triton.aggregate`` class (tilec.language.aggregate)."""
    return bool(getattr(type(x), "__tilec_aggregate__", False))


def unwrap(x: Any) -> Any:
    """Strip ``tl.constexpr`` wrappers: compile-time values are plain Python objects here."""
    while isinstance(x, constexpr):
        x = x.value
    return x


def leaves(obj: Any) -> list[Tensor]:
    """Every Tensor inside ``obj`` (a Tensor, struct or tuple), in a fixed order."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, Struct):
        return [t for f in obj.fields() for t in leaves(f)]
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in leaves(item)]
    if is_aggregate(obj):
        return [t for f in obj.aggregate_values() for t in leaves(f)]
    return []


def rebuild(obj: Any, new: Iterator[Tensor]) -> Any:
    """``obj`` with its Tensors replaced, in ``leaves`` order, by the next items of ``new``."""
    if isinstance(obj, Tensor):
        return next(new)
    if isinstance(obj, Struct):
        return obj.with_fields([rebuild(f, new) for f in obj.fields()])
    if isinstance(obj, tuple):
        return tuple(rebuild(item, new) for item in obj)
    if isinstance(obj, list):
        return [rebuild(item, new) for item in obj]
    if is_aggregate(obj):
        return obj.with_aggregate_values([rebuild(f, new) for f in obj.aggregate_values()])
    return obj


def same_structure(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` differ at most in their Tensors (compile-time parts equal)."""
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return isinstance(a, Tensor) and isinstance(b, Tensor)
    if isinstance(a, Struct) or isinstance(b, Struct):
        if type(a) is not type(b):
            return False
        static_a = replace(a, **{f: None for f in ("base", "shape", "strides")})
        static_b = replace(b, **{f: None for f in ("base", "shape", "strides")})
        if isinstance(a, BlockPointer):
            static_a, static_b = replace(static_a, offsets=()), replace(static_b, offsets=())
        return static_a == static_b and same_structure(a.fields(), b.fields())
    if is_aggregate(a) or is_aggregate(b):
        return type(a) is type(b) and same_structure(a.aggregate_values(), b.aggregate_values())
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same_structure(x, y) for x, y in zip(a, b))
        )
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False
