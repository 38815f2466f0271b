"""Elementwise arithmetic: binary operators, comparisons, math functions, select and casts.

Operands of an elementwise op always have the same shape (the frontend inserts broadcasts) and,
except for casts, the same element type. Integer signedness comes from the element type: DIV on
i32 is a signed, truncating division (C semantics), on u32 an unsigned one.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from ...source import SourceLoc
from ..core import Op, Value
from ..types import Kind, ScalarType, Type, element_of, int1, int32, shape_of, with_element
from ._check import fail, require, same_shape, same_type


class BinaryKind(enum.Enum):
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"  # float: IEEE division; int: truncating (C) division
    REM = "rem"  # float: fmod; int: C remainder (sign of the dividend)
    AND = "and"
    OR = "or"
    XOR = "xor"
    SHL = "shl"
    SHR = "shr"  # arithmetic for signed, logical for unsigned
    MIN = "min"  # float: NaN-propagating when `propagate_nan` is set, else minnum
    MAX = "max"


_INT_ONLY = {BinaryKind.AND, BinaryKind.OR, BinaryKind.XOR, BinaryKind.SHL, BinaryKind.SHR}


class BinaryOp(Op):
    name = "binary"

    def __init__(
        self,
        kind: BinaryKind,
        lhs: Value,
        rhs: Value,
        loc: SourceLoc | None = None,
        propagate_nan: bool = False,
        fast: bool = False,
    ):
        super().__init__([lhs, rhs], [lhs.type], loc)
        self.kind = kind
        self.propagate_nan = propagate_nan
        self.fast = fast  # float ops that may be approximated (reassociation, afn)

    def attributes(self) -> dict[str, Any]:
        attrs: dict[str, Any] = {"kind": self.kind.value}
        if self.propagate_nan:
            attrs["propagate_nan"] = True
        if self.fast:
            attrs["fast"] = True
        return attrs

    def verify(self) -> None:
        same_type(self, *self.operands)
        elem = element_of(self.operands[0].type)
        require(self, isinstance(elem, ScalarType), f"needs scalar elements, got {elem}")
        if self.kind in _INT_ONLY:
            require(
                self,
                isinstance(elem, ScalarType) and elem.is_int(),
                f"{self.kind.value} needs integers",
            )


class CompareKind(enum.Enum):
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class CompareOp(Op):
    """Elementwise comparison giving i1. Floats compare ordered, except NE (unordered)."""

    name = "compare"

    def __init__(self, kind: CompareKind, lhs: Value, rhs: Value, loc: SourceLoc | None = None):
        super().__init__([lhs, rhs], [with_element(lhs.type, int1)], loc)
        self.kind = kind

    def attributes(self) -> dict[str, Any]:
        return {"kind": self.kind.value}

    def verify(self) -> None:
        same_type(self, *self.operands)


@dataclass(frozen=True)
class MathFunction:
    """A named elementwise math function: its arity and which element kinds it takes."""

    name: str
    arity: int
    floats: bool = True
    ints: bool = False
    predicate: bool = False  # returns i1 (isnan, isinf, signbit)


def _table(*entries: MathFunction) -> dict[str, MathFunction]:
    return {e.name: e for e in entries}


_UNARY_FLOAT = (
    "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sqrt", "sqrt_rn", "rsqrt",
    "cbrt", "rcbrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "erf", "erfc", "erfinv", "erfcinv", "erfcx", "floor", "ceil", "trunc",
    "round", "rint", "nearbyint", "lgamma", "tgamma", "j0", "j1", "y0", "y1", "normcdf",
    "normcdfinv", "sinpi", "cospi", "logb", "saturatef", "fast_expf", "fast_logf", "fast_log2f",
    "fast_exp10f", "fast_log10f", "fast_sinf", "fast_cosf", "fast_tanf", "rcp_rn",
)  # fmt: skip
_BINARY_FLOAT = (
    "pow", "atan2", "fmod", "hypot", "copysign", "fmin", "fmax", "nextafter", "fdim", "remainder",
    "div_rn", "div_rz", "div_rd", "div_ru", "fdiv_ieee", "fast_powf", "fast_dividef",
)  # fmt: skip

MATH_FUNCTIONS: dict[str, MathFunction] = _table(
    *(MathFunction(n, 1) for n in _UNARY_FLOAT),
    *(MathFunction(n, 2) for n in _BINARY_FLOAT),
    MathFunction("neg", 1, ints=True),
    MathFunction("abs", 1, ints=True),
    MathFunction("not", 1, floats=False, ints=True),  # bitwise invert
    MathFunction("umulhi", 2, floats=False, ints=True),
    MathFunction("mulhi", 2, floats=False, ints=True),
    MathFunction("popc", 1, floats=False, ints=True),
    MathFunction("clz", 1, floats=False, ints=True),
    MathFunction("ffs", 1, floats=False, ints=True),
    MathFunction("brev", 1, floats=False, ints=True),
    MathFunction("fma", 3),
    MathFunction("ldexp", 2),  # second operand is an i32 of the same shape
    MathFunction("ilogb", 1),  # result i32
    MathFunction("isnan", 1, predicate=True),
    MathFunction("isinf", 1, predicate=True),
    MathFunction("isfinite", 1, predicate=True),
    MathFunction("signbit", 1, predicate=True),
)


class MathOp(Op):
    """A named math function applied elementwise (``exp``, ``pow``, ``umulhi``, ``fma`` ...).

    Backends map each name to fast instructions, libm (CPU) or libdevice (CUDA). ``fast`` allows
    approximations (Triton's default for ``tl.exp`` etc. on GPUs).
    """

    name = "math"

    def __init__(
        self, fn: str, operands: list[Value], loc: SourceLoc | None = None, fast: bool = False
    ):
        spec = MATH_FUNCTIONS[fn]
        t = operands[0].type
        if spec.predicate:
            t = with_element(t, int1)
        elif fn == "ilogb":
            t = with_element(t, int32)
        super().__init__(operands, [t], loc)
        self.fn = fn
        self.fast = fast

    def attributes(self) -> dict[str, Any]:
        return {"fn": self.fn, **({"fast": True} if self.fast else {})}

    def verify(self) -> None:
        spec = MATH_FUNCTIONS.get(self.fn)
        if spec is None:
            fail(self, f"unknown math function {self.fn!r}")
            return
        require(self, len(self.operands) == spec.arity, f"{self.fn} takes {spec.arity} operands")
        same_shape(self, *self.operands)
        elem = element_of(self.operands[0].type)
        ok = isinstance(elem, ScalarType) and (
            (spec.floats and elem.is_floating()) or (spec.ints and elem.is_int())
        )
        require(self, ok, f"{self.fn} does not take {elem}")
        if self.fn != "ldexp":
            same_type(self, *self.operands)


class SelectOp(Op):
    """``where(cond, a, b)`` elementwise; cond is i1 of the same shape."""

    name = "select"

    def __init__(self, cond: Value, a: Value, b: Value, loc: SourceLoc | None = None):
        super().__init__([cond, a, b], [a.type], loc)

    def verify(self) -> None:
        cond, a, b = self.operands
        same_type(self, a, b)
        require(self, str(element_of(cond.type)) == "i1", "condition must be i1")
        require(self, shape_of(cond.type) in ((), shape_of(a.type)), "condition shape differs")


class Rounding(enum.Enum):
    """How a float conversion rounds a value it cannot hold (``fp_downcast_rounding``)."""

    RTNE = "rtne"  # to nearest, ties to even
    RTZ = "rtz"  # toward zero


class CastOp(Op):
    """Value conversion between element types (ints, floats, bools, pointers ↔ i64).

    Int → int extends by the *source* signedness; float → int truncates toward zero; anything →
    i1 compares with zero. ``rounding`` is ``rtne`` (default) or ``rtz`` for float downcasts.
    """

    name = "cast"

    def __init__(
        self,
        value: Value,
        to: Type,
        loc: SourceLoc | None = None,
        rounding: Rounding = Rounding.RTNE,
    ):
        super().__init__([value], [to], loc)
        self.rounding = rounding

    def attributes(self) -> dict[str, Any]:
        return {
            "to": str(self.results[0].type),
            **({"rounding": self.rounding.value} if self.rounding is not Rounding.RTNE else {}),
        }

    def verify(self) -> None:
        require(
            self,
            shape_of(self.operands[0].type) == shape_of(self.results[0].type),
            "cast changes shape",
        )
        require(self, isinstance(self.rounding, Rounding), f"unknown rounding {self.rounding!r}")


class BitcastOp(Op):
    """Reinterpret the bits of each element as another type of the same width."""

    name = "bitcast"

    def __init__(self, value: Value, to: Type, loc: SourceLoc | None = None):
        super().__init__([value], [to], loc)

    def attributes(self) -> dict[str, Any]:
        return {"to": str(self.results[0].type)}

    def verify(self) -> None:
        src, dst = element_of(self.operands[0].type), element_of(self.results[0].type)
        require(
            self,
            shape_of(self.operands[0].type) == shape_of(self.results[0].type),
            "bitcast changes shape",
        )
        require(
            self,
            src.primitive_bitwidth == dst.primitive_bitwidth,
            f"bitcast {src} → {dst} changes width",
        )


def is_signed(t: Type) -> bool:
    e = element_of(t)
    return isinstance(e, ScalarType) and e.kind is Kind.SINT
