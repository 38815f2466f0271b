"""The one type system: scalar element types, pointers and tiles.

``tl.float32 is ir.types.float32``: the language's dtypes *are* these objects. Tiles have a static
shape (every dimension a power of two or 1 in practice; the frontend enforces Triton's rules) and
an element that is a scalar or a pointer. Scalars are not rank-0 tiles.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Enum):
    BOOL = "bool"
    SINT = "sint"
    UINT = "uint"
    FLOAT = "float"


@dataclass(frozen=True)
class ScalarType:
    """An element type such as fp32, i64 or u8 (names follow Triton: ``str(tl.float32) == 'fp32'``)."""

    short: str  # the IR's spelling (fp32, i64, u8): ``str(t)``, printed IR, signatures
    kind: Kind
    bits: int

    def __str__(self) -> str:
        return self.short

    def __repr__(self) -> str:
        return f"tl.{LANGUAGE_NAMES.get(self.short, self.short)}"

    @property
    def name(self) -> str:
        """Triton's ``dtype.name``: ``int32``, ``uint8``, ``int1`` for integers and booleans,
        ``fp32``, ``bf16`` for floats (host code builds numpy dtypes from it)."""
        return self.short if self.kind is Kind.FLOAT else LANGUAGE_NAMES[self.short]

    # Triton's dtype predicates, which kernels call on ``x.dtype``.
    @property
    def primitive_bitwidth(self) -> int:
        return self.bits

    @property
    def itemsize(self) -> int:
        return max(self.bits // 8, 1)

    @property
    def fp_mantissa_width(self) -> int:
        """Explicit mantissa bits of a float type (Triton's name); integers have none."""
        try:
            return _MANTISSA_BITS[self.short]
        except KeyError:
            raise AttributeError(f"{self.name} is not a floating-point type") from None

    @property
    def exponent_bias(self) -> int:
        """The exponent bias of a float type (Triton's name); integers have none."""
        try:
            return _EXPONENT_BIAS[self.short]
        except KeyError:
            raise AttributeError(f"{self.name} is not a floating-point type") from None

    @property
    def scalar(self) -> ScalarType:
        return self

    def is_floating(self) -> bool:
        return self.kind is Kind.FLOAT

    def is_int(self) -> bool:
        return self.kind in (Kind.SINT, Kind.UINT, Kind.BOOL)

    def is_int_signed(self) -> bool:
        return self.kind is Kind.SINT

    def is_int_unsigned(self) -> bool:
        return self.kind is Kind.UINT

    def is_bool(self) -> bool:
        return self.kind is Kind.BOOL

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    def is_fp16(self) -> bool:
        return self.short == "fp16"

    def is_bf16(self) -> bool:
        return self.short == "bf16"

    def is_fp32(self) -> bool:
        return self.short == "fp32"

    def is_fp64(self) -> bool:
        return self.short == "fp64"

    def is_int1(self) -> bool:
        return self.short == "i1"

    def is_int8(self) -> bool:
        return self.short == "i8"

    def is_int16(self) -> bool:
        return self.short == "i16"

    def is_int32(self) -> bool:
        return self.short == "i32"

    def is_int64(self) -> bool:
        return self.short == "i64"

    def is_uint8(self) -> bool:
        return self.short == "u8"

    def is_uint16(self) -> bool:
        return self.short == "u16"

    def is_uint32(self) -> bool:
        return self.short == "u32"

    def is_uint64(self) -> bool:
        return self.short == "u64"

    def is_standard_floating(self) -> bool:
        return self.short in ("fp16", "bf16", "fp32", "fp64")


@dataclass(frozen=True)
class PointerType:
    """A pointer to ``element`` in ``address_space`` (1 = global, as in Triton)."""

    element: ScalarType | PointerType
    address_space: int = 1

    def __str__(self) -> str:
        return f"*{self.element}"

    @property
    def element_ty(self) -> ScalarType | PointerType:
        return self.element

    @property
    def scalar(self) -> PointerType:
        return self

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    def is_ptr(self) -> bool:
        return True

    def is_block(self) -> bool:
        return False

    def is_floating(self) -> bool:
        return False

    def is_int(self) -> bool:
        return False

    def is_bool(self) -> bool:
        return False


Element = ScalarType | PointerType


@dataclass(frozen=True)
class TileType:
    """A tile: a static ``shape`` of ``element`` values (rank >= 1)."""

    shape: tuple[int, ...]
    element: Element

    def __post_init__(self) -> None:
        if not self.shape:
            raise ValueError("a TileType needs rank >= 1; use the element type for scalars")

    def __str__(self) -> str:
        return f"tile<{'x'.join(map(str, self.shape))}x{self.element}>"

    @property
    def scalar(self) -> Element:
        return self.element

    @property
    def element_ty(self) -> Element:
        return self.element

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def is_block(self) -> bool:
        return True

    def is_ptr(self) -> bool:
        return False


Type = ScalarType | PointerType | TileType

_MANTISSA_BITS = {
    "fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52,
    "fp8e4nv": 3, "fp8e4b8": 3, "fp8e4b15": 3, "fp8e5": 2, "fp8e5b16": 2,
}  # fmt: skip
_EXPONENT_BIAS = {
    "fp16": 15, "bf16": 127, "fp32": 127, "fp64": 1023,
    "fp8e4nv": 7, "fp8e4b8": 8, "fp8e4b15": 15, "fp8e5": 15, "fp8e5b16": 16,
}  # fmt: skip

int1 = ScalarType("i1", Kind.BOOL, 1)
int8 = ScalarType("i8", Kind.SINT, 8)
int16 = ScalarType("i16", Kind.SINT, 16)
int32 = ScalarType("i32", Kind.SINT, 32)
int64 = ScalarType("i64", Kind.SINT, 64)
uint8 = ScalarType("u8", Kind.UINT, 8)
uint16 = ScalarType("u16", Kind.UINT, 16)
uint32 = ScalarType("u32", Kind.UINT, 32)
uint64 = ScalarType("u64", Kind.UINT, 64)
float16 = ScalarType("fp16", Kind.FLOAT, 16)
bfloat16 = ScalarType("bf16", Kind.FLOAT, 16)
float32 = ScalarType("fp32", Kind.FLOAT, 32)
float64 = ScalarType("fp64", Kind.FLOAT, 64)

# fp8 types exist so kernels can name and compare them (Triton's tutorials test
# ``dtype == tl.float8e5``); no tilec value may have one: the frontend rejects them by name.
float8e4nv = ScalarType("fp8e4nv", Kind.FLOAT, 8)
float8e5 = ScalarType("fp8e5", Kind.FLOAT, 8)
float8e4b15 = ScalarType("fp8e4b15", Kind.FLOAT, 8)
float8e4b8 = ScalarType("fp8e4b8", Kind.FLOAT, 8)
float8e5b16 = ScalarType("fp8e5b16", Kind.FLOAT, 8)
UNSUPPORTED_TYPES = frozenset({float8e4nv, float8e5, float8e4b15, float8e4b8, float8e5b16})

SCALAR_TYPES: tuple[ScalarType, ...] = (
    int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64,
)  # fmt: skip
BY_NAME: dict[str, ScalarType] = {t.short: t for t in SCALAR_TYPES}
LANGUAGE_NAMES: dict[str, str] = {
    "i1": "int1", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
    "fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp8e4b15": "float8e4b15",
    "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16",
}  # fmt: skip


def element_of(t: Type) -> Element:
    """The element type of a tile, or the type itself for scalars and pointers."""
    return t.element if isinstance(t, TileType) else t


def shape_of(t: Type) -> tuple[int, ...]:
    """The tile's shape, or ``()`` for scalars and pointers."""
    return t.shape if isinstance(t, TileType) else ()


def with_shape(element: Element, shape: tuple[int, ...]) -> Type:
    """A tile of ``element`` with ``shape``, or the scalar itself when ``shape`` is ``()``."""
    return TileType(tuple(shape), element) if shape else element


def with_element(t: Type, element: Element) -> Type:
    """``t``'s shape with another element type."""
    return with_shape(element, shape_of(t))


def pointer(element: Element, address_space: int = 1) -> PointerType:
    return PointerType(element, address_space)
