"""The fuzzer's model of tilec's element types and Triton's promotion rules, written apart from
the compiler so that a typing bug in tilec shows up as a difference instead of being copied.

Reference values live in NumPy arrays: integers in their own dtype, bool as np.bool_, fp16 as
float16, bf16 as float32 holding bf16-representable values (NumPy has no bf16), fp32/fp64 native.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str  # tilec's spelling after ``tl.``
    kind: str  # "b" bool, "i" signed, "u" unsigned, "f" float
    bits: int
    np_value: str  # NumPy dtype of reference values
    np_storage: str  # NumPy dtype of the buffer that holds it (bf16 -> uint16 bits)

    @property
    def tl(self) -> str:
        return f"tl.{self.name}"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    def __repr__(self) -> str:
        return self.name


def _d(name: str, kind: str, bits: int, value: str, storage: str | None = None) -> DType:
    return DType(name, kind, bits, value, storage or value)


BOOL = _d("int1", "b", 1, "bool")
I8, I16, I32, I64 = (_d(f"int{b}", "i", b, f"int{b}") for b in (8, 16, 32, 64))
U8, U16, U32, U64 = (_d(f"uint{b}", "u", b, f"uint{b}") for b in (8, 16, 32, 64))
F16 = _d("float16", "f", 16, "float16")
BF16 = _d("bfloat16", "f", 16, "float32", "uint16")
F32 = _d("float32", "f", 32, "float32")
F64 = _d("float64", "f", 64, "float64")
INTS = (I8, I16, I32, I64, U8, U16, U32, U64)
FLOATS = (F16, BF16, F32, F64)
ALL = (I32, F32, I8, I16, I64, U8, U16, U32, U64, F16, BF16, F64)  # simplest first (shrinking)

# precision p (significand bits), smallest normal exponent, largest finite value
FLOAT_FORMAT = {
    "float16": (11, -14, 65504.0),
    "bfloat16": (8, -126, float.fromhex("0x1.fep127")),
    "float32": (24, -126, float.fromhex("0x1.fffffep127")),
    "float64": (53, -1022, float.fromhex("0x1.fffffffffffffp1023")),
}


def int_range(t: DType) -> tuple[int, int]:
    if t.is_bool:
        return 0, 1
    if t.kind == "u":
        return 0, 2**t.bits - 1
    return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1


def python_type(value: bool | int | float) -> DType:
    """The type a Python number takes in a kernel (Triton: narrowest of i32/u32/i64/u64, fp32)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        for lo, hi, t in ((-(2**31), 2**31, I32), (2**31, 2**32, U32), (-(2**63), 2**63, I64)):
            if lo <= value < hi:
                return t
        return U64
    return F32


def _rank(t: DType) -> int:
    return 0 if t.is_bool else 2 if t.is_float else 1


def integer_promote(a: DType, b: DType) -> DType:
    """C's usual arithmetic conversions."""
    if (a.kind == "u") == (b.kind == "u"):
        return a if a.bits > b.bits else b
    if a.kind == "u":
        return a if a.bits >= b.bits else b
    return b if b.bits >= a.bits else a


def computation_type(a: DType, a_lit: bool, b: DType, b_lit: bool, div_or_mod: bool) -> DType:
    """Triton's computation type of a binary arithmetic op (a Python number does not widen a
    tensor of its kind or a higher one; fp16/bf16 divisions compute in fp32)."""
    if a_lit != b_lit:
        lit, ten = (a, b) if a_lit else (b, a)
        if _rank(lit) <= _rank(ten):
            if div_or_mod and ten in (F16, BF16):
                return F32
            return ten
    names = {a.name, b.name}
    if "float64" in names:
        return F64
    if "float32" in names:
        return F32
    if "float16" in names:
        return F32 if div_or_mod else F16
    if "bfloat16" in names:
        return BF16 if names == {"bfloat16"} and not div_or_mod else F32
    return integer_promote(a, b)


def same_signedness(a: DType, b: DType) -> bool:
    return a.is_bool or b.is_bool or (a.kind == "u") == (b.kind == "u")


def sum_type(t: DType) -> DType:
    """tl.sum / tl.cumsum widen integers narrower than 32 bits (keeping the sign)."""
    if t.is_bool or (t.kind == "i" and t.bits < 32):
        return I32
    if t.kind == "u" and t.bits < 32:
        return U32
    return t


def minmax_reduce_type(t: DType) -> DType:
    """tl.max / tl.min compute narrow floats in fp32 and narrow integers in int32."""
    if t.is_float and t.bits < 32:
        return F32
    if (t.is_int or t.is_bool) and t.bits < 32:
        return I32
    return t


def same_width(t: DType) -> tuple[DType, ...]:
    """The types ``t`` can be bitcast to."""
    return tuple(u for u in ALL if u.bits == t.bits and u != t)
