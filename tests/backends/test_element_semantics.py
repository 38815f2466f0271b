"""One test per edge case of docs/language/semantics.md: the CPU result is the decided value to
the bit, the same kernel's PTX encodes the same semantics, and on a GPU CUDA matches the CPU."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg
from tilec.ir.types import TileType

from .cpu.support import Kernel, kernel, poisoned

BLOCK = 64
NP = {T.int8: np.int8, T.int16: np.int16, T.int32: np.int32, T.int64: np.int64,
      T.uint8: np.uint8, T.uint32: np.uint32, T.uint64: np.uint64, T.float16: np.float16,
      T.float32: np.float32, T.float64: np.float64, T.bfloat16: np.uint16}  # fmt: skip


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable[..., Any]  # (builder, *tiles) -> tile
    in_t: T.ScalarType
    out_t: T.ScalarType
    inputs: tuple[tuple[Any, ...], ...]
    expected: tuple[Any, ...]
    ptx: Callable[[str], bool]  # the PTX encodes the decided semantics

    def module(self) -> O.ModuleOp:
        specs = [pointer_arg(f"x{i}", self.in_t) for i in range(len(self.inputs))]
        specs += [pointer_arg("out", self.out_t), scalar_arg("n", T.int32)]

        def body(b: Any, *args: Any) -> None:
            *xs, out, n = args
            offs = b.make_range(0, BLOCK)
            mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (BLOCK,)))
            vals = [b.load(b.addptr(b.splat(x, (BLOCK,)), offs), mask) for x in xs]
            b.store(b.addptr(b.splat(out, (BLOCK,)), offs), self.fn(b, *vals), mask)

        return kernel(specs, body)

    def arrays(self) -> list[np.ndarray]:
        return [_array(col, self.in_t) for col in self.inputs]

    def want(self) -> np.ndarray:
        return _array(self.expected, self.out_t)


def _array(values: tuple[Any, ...], t: T.ScalarType) -> np.ndarray:
    if t == T.bfloat16:
        return np.array([v if isinstance(v, int) else _bf16_bits(v) for v in values], np.uint16)
    dtype = NP[t]
    if np.issubdtype(dtype, np.integer):
        return np.array([int(v) % (1 << 64) for v in values], np.uint64).astype(dtype)
    return np.array(values, np.float64).astype(dtype)


def _as(v: float, t: T.ScalarType) -> float:
    """``v`` rounded to float type ``t`` (overflowing to inf, as a store would)."""
    with np.errstate(over="ignore"):
        return float(np.array(v).astype(NP[t]))


# -- independent references -------------------------------------------------------------------


def _round_binary(x: float, mantissa: int, emin: int, emax: int, rtz: bool = False) -> float:
    """``x`` rounded to a binary format with ``mantissa`` significant bits, by exact arithmetic."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    f = Fraction(x)
    e = max(math.floor(math.log2(abs(f))), emin)
    while Fraction(2) ** e > abs(f):
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - mantissa + 1)
    q = f / ulp
    n = math.trunc(q) if rtz else round(q)  # Python's round is half-to-even
    r = n * ulp
    top = (2 - Fraction(2) ** (1 - mantissa)) * Fraction(2) ** emax
    if abs(r) > top:
        return math.copysign(float(top) if rtz else math.inf, x)
    return math.copysign(float(r), x) if r == 0 else float(r)


def _bf16_bits(x: float, rtz: bool = False) -> int:
    if math.isnan(x):
        return 0x7FC0
    v = _round_binary(x, 8, -126, 127, rtz)
    return int(np.array(v, np.float32).view(np.uint32)) >> 16


def _c_div(a: int, b: int, bits: int, signed: bool) -> tuple[int, int]:
    if b == 0:
        return -1, a
    if signed and a == -(1 << (bits - 1)) and b == -1:
        return a, 0
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b > 0) else -1)
    return q, a - q * b


def _saturate(x: float, t: T.ScalarType) -> int:
    signed = t.kind is T.Kind.SINT
    lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if signed else (0, (1 << t.bits) - 1)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(math.trunc(x), lo), hi)


# -- the cases --------------------------------------------------------------------------------

INTS = [T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint32, T.uint64]


def _ptx_div(kind: str) -> Callable[[str], bool]:
    def check(ptx: str) -> bool:
        return bool(
            re.search(rf"\b{kind}\.[su](16|32|64)\b", ptx)
            # the divisor LLVM sees is never 0 (or -1): a select, or max(y, 1) for unsigned
            and re.search(r"selp\.b\d+\s+%\w+, 1, %\w+|max\.u\d+\s+%\w+, %\w+, 1;", ptx)
            and re.search(r"setp\.eq\.[bsu]\d+\s+%p\d+, %\w+, 0;", ptx)
        )

    return check


def _div_cases() -> list[Case]:
    out = []
    for t in INTS:
        signed = t.kind is T.Kind.SINT
        lo, hi = (
            (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if signed else (0, (1 << t.bits) - 1)
        )
        x = (7, -7 if signed else 70, 0, lo, hi, 5, lo, 9, -9 if signed else 90, hi)
        y = (0, 0, 0, -1 if signed else 1, 0, 2, 1, -3 if signed else 3, 4, -1 if signed else 1)
        for kind, idx in ((O.BinaryKind.DIV, 0), (O.BinaryKind.REM, 1)):
            want = tuple(_c_div(a, d, t.bits, signed)[idx] for a, d in zip(x, y))
            out.append(
                Case(
                    f"{kind.value}_{t}",
                    lambda b, p, q, k=kind: b.binary(k, p, q),
                    t,
                    t,
                    (x, y),
                    want,
                    _ptx_div(kind.value),
                )
            )
    return out


def _ptx_shift(bits: int) -> Callable[[str], bool]:
    def check(ptx: str) -> bool:
        if not re.search(r"\b(shl|shr)\.[bsu]\d+\b", ptx):
            return False
        if bits == 32:  # LLVM folds the clamp into PTX's own: shl/shr.b32 clamp amounts at 32
            return True
        if bits == 64:  # PTX shift amounts are 32 bits: clamp the 64-bit amount, then narrow
            m = re.search(r"min\.u64\s+(%rd\d+), %rd\d+, (63|64);", ptx)
            return bool(m and re.search(rf"cvt\.u32\.u64\s+%r\d+, {m.group(1)};", ptx))
        bound = rf"({bits - 1}|{bits})"
        return bool(
            re.search(rf"setp\.(gt|ge|lt)\.u\d+\s+%p\d+, %\w+, {bound};", ptx)
            or re.search(rf"min\.u\d+\s+%\w+, %\w+, {bound};", ptx)
        )

    return check


def _shift_cases() -> list[Case]:
    out = []
    for t in [T.int8, T.int32, T.int64, T.uint8, T.uint32, T.uint64]:
        signed = t.kind is T.Kind.SINT
        w = t.bits
        x = (-5 if signed else 5, 3, 1, 12345 % (1 << (w - 1)), -1 if signed else 200 % (1 << w))
        xs = x * 5
        amounts = (0, 1, w - 1, w, w + 1, 2 * w, 100 % (1 << (w - 1)), -1, -w)
        if w == 64:  # amounts past 32 bits whose low half is in range
            amounts += (1 << 32, (1 << 32) + 1, (1 << 62) + 3)
        amounts = (amounts * 6)[: len(xs)]
        m = (1 << w) - 1
        for kind in (O.BinaryKind.SHL, O.BinaryKind.SHR):
            want = []
            for a, s in zip(xs, amounts):
                n = s % (1 << w)  # the amount read as unsigned
                if kind is O.BinaryKind.SHL:
                    want.append(((a << n) & m) if n < w else 0)
                elif signed:
                    want.append(a >> min(n, w - 1))
                else:
                    want.append((a & m) >> n if n < w else 0)
            out.append(
                Case(
                    f"{kind.value}_{t}",
                    lambda b, p, q, k=kind: b.binary(k, p, q),
                    t,
                    t,
                    (xs, amounts),
                    tuple(want),
                    _ptx_shift(w),
                )
            )
            if w == 64:  # a constant shifted: LLVM folds the clamp into the shift (see above)
                const = 3 if kind is O.BinaryKind.SHL or not signed else -3
                out.append(
                    Case(
                        f"{kind.value}_{t}_constant",
                        lambda b, p, q, k=kind, c=const: b.binary(
                            k, b.constant(c, TileType((BLOCK,), p.type.element)), q
                        ),
                        t,
                        t,
                        (xs, amounts),
                        tuple(_shifted(kind, signed, w, const, s) for s in amounts),
                        _ptx_shift(w),
                    )
                )
    return out


def _shifted(kind: O.BinaryKind, signed: bool, w: int, a: int, s: int) -> int:
    n, m = s % (1 << w), (1 << w) - 1
    if kind is O.BinaryKind.SHL:
        return ((a << n) & m) if n < w else 0
    return a >> min(n, w - 1) if signed else ((a & m) >> n if n < w else 0)


F2I_VALUES = (
    math.nan,
    math.inf,
    -math.inf,
    1e10,
    -1e10,
    2.5,
    -2.5,
    -0.7,
    127.9,
    128.0,
    -128.5,
    -129.0,
    255.5,
    256.0,
    65535.9,
    2.0**31,
    -(2.0**31),
    3e9,
    2.0**63,
    2.0**64,
    -0.0,
)


def _ptx_f2i(ptx: str) -> bool:
    return bool(re.search(r"cvt\.rzi\.[su]\d+\.f\d+", ptx) and re.search(r"setp\.nan\.f", ptx))


def _f2i_cases() -> list[Case]:
    pairs = [
        (T.float32, t) for t in [T.int8, T.uint8, T.int16, T.int32, T.uint32, T.int64, T.uint64]
    ]
    pairs += [(T.float64, T.int32), (T.float64, T.uint64), (T.float64, T.int64)]
    pairs += [(T.float16, T.int8), (T.float16, T.int32), (T.float16, T.uint8)]
    out = []
    for src, dst in pairs:
        vals = tuple(_as(v, src) for v in F2I_VALUES)
        want = tuple(_saturate(v, dst) for v in vals)
        out.append(
            Case(
                f"cast_{src}_{dst}",
                lambda b, p, d=dst: b.cast(p, TileType((BLOCK,), d)),
                src,
                dst,
                (vals,),
                want,
                _ptx_f2i,
            )
        )
    return out


U64_VALUES = (2**64 - 1, 2**63, 2**63 + 1, 2**63 + 2**39 + 1, 2**63 + 2**40, 2**63 + 2**10 + 1,
              2**53 + 1, 1, 0, 2**64 - 2**40)  # fmt: skip


def _u64_to_float_cases() -> list[Case]:
    """u64 → float is correctly rounded from 2**63 on, also for a signed int widened to u64
    first (LLVM's SLP vectorizer once turned that into a conversion of the 32-bit value)."""
    f32 = (24, -126, 127)
    out = []
    for dst, fmt in ((T.float32, f32), (T.float64, (53, -1022, 1023))):
        out.append(Case(
            f"cast_uint64_{dst}",
            lambda b, p, d=dst: b.cast(p, TileType((BLOCK,), d)),
            T.uint64, dst, (U64_VALUES,), tuple(_round_binary(v, *fmt) for v in U64_VALUES),
            lambda ptx: bool(re.search(r"cvt\.rn\.f(32|64)\.[su]64", ptx)),
        ))  # fmt: skip
    xs = (-5, -1, -(2**31), 2**31 - 1, 0, 7)

    def via_u64(b: Any, p: Any) -> Any:
        return b.cast(b.cast(p, TileType((BLOCK,), T.uint64)), TileType((BLOCK,), T.float32))

    want = tuple(_round_binary(x % 2**64, *f32) for x in xs)
    out.append(Case("cast_int32_uint64_float32", via_u64, T.int32, T.float32, (xs,), want,
                    lambda ptx: "cvt.s64.s32" in ptx or "cvt.rn.f32.s32" in ptx))  # fmt: skip
    return out


MINMAX_PAIRS = [(math.nan, 1.0), (1.0, math.nan), (math.nan, math.nan), (0.0, -0.0), (-0.0, 0.0),
                (-0.0, -0.0), (1.0, 2.0), (-math.inf, math.nan), (3.0, -1.0), (math.inf, 1.0)]  # fmt: skip


def _minmax(kind: O.BinaryKind, a: float, b: float, nan: bool) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan if nan or (math.isnan(a) and math.isnan(b)) else (b if math.isnan(a) else a)
    if a == b:  # only zeros differ: min takes -0.0, max +0.0
        neg = math.copysign(1, a) < 0 or math.copysign(1, b) < 0
        pos = math.copysign(1, a) > 0 or math.copysign(1, b) > 0
        return -0.0 if (kind is O.BinaryKind.MIN and neg) or not pos else (a if a != 0 else 0.0)
    return min(a, b) if kind is O.BinaryKind.MIN else max(a, b)


def _ptx_minmax(ptx: str) -> bool:  # compares and selects, with the zero-sign join
    return bool(
        re.search(r"setp\.eq\.(f|bf)16|setp\.eq\.f(32|64)", ptx)
        and re.search(r"\b(or|and)\.b(16|32|64)\b", ptx)
    )


def _minmax_cases() -> list[Case]:
    out = []
    for t in (T.float16, T.float32, T.float64, T.bfloat16):
        for kind in (O.BinaryKind.MIN, O.BinaryKind.MAX):
            for nan in (False, True):
                xs = tuple(p[0] for p in MINMAX_PAIRS)
                ys = tuple(p[1] for p in MINMAX_PAIRS)
                want = tuple(_minmax(kind, a, b, nan) for a, b in MINMAX_PAIRS)
                out.append(
                    Case(
                        f"{kind.value}{'_nan' if nan else ''}_{t}",
                        lambda b, p, q, k=kind, n=nan: b.binary(k, p, q, propagate_nan=n),
                        t,
                        t,
                        (xs, ys),
                        want,
                        _ptx_minmax,
                    )
                )
    return out


NEG_VALUES = (0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan, 1e-40)


def _neg_cases() -> list[Case]:
    return [
        Case(
            f"neg_{t}",
            lambda b, p: b.math("neg", p),
            t,
            t,
            (NEG_VALUES,),
            tuple(-v for v in NEG_VALUES),
            lambda ptx: "neg.f" in ptx or "xor.b" in ptx,
        )
        for t in (T.float16, T.float32, T.float64, T.bfloat16)
    ]


def _wrapping_neg_cases() -> list[Case]:
    """``-x`` and ``abs(x)`` wrap in x's type (-INT_MIN is INT_MIN) before a widening cast
    reads them."""
    out = []
    for t, wide in ((T.int8, T.int64), (T.int16, T.int64), (T.int16, T.int32), (T.int32, T.int64)):
        lo = -(1 << (t.bits - 1))
        xs = (lo, lo + 1, -1, 0, 1, -lo - 1)
        want = tuple(lo if x == lo else -x for x in xs)

        def fn(b: Any, p: Any, t: T.ScalarType = t, wide: T.ScalarType = wide) -> Any:
            zero = b.constant(0, TileType((BLOCK,), t))
            return b.cast(b.binary(O.BinaryKind.SUB, zero, p), TileType((BLOCK,), wide))

        def twice(b: Any, p: Any, wide: T.ScalarType = wide) -> Any:
            return b.cast(b.binary(O.BinaryKind.ADD, p, p), TileType((BLOCK,), wide))

        def absolute(b: Any, p: Any, wide: T.ScalarType = wide) -> Any:
            return b.cast(b.math("abs", p), TileType((BLOCK,), wide))

        out.append(Case(f"abs_{t}_to_{wide}", absolute, t, wide, (xs,), tuple(abs(x) if x != lo else lo for x in xs),
                        _no_abs_s16 if t.bits == 16 else _narrow_arith("abs|neg|not")))  # fmt: skip
        doubled = tuple(((2 * x - lo) % (1 << t.bits)) + lo for x in xs)
        negate = _narrow_arith("not|neg|sub") if t.bits != 16 else _no_neg_s16
        out.append(Case(f"neg_{t}_to_{wide}", fn, t, wide, (xs,), want, negate))
        out.append(
            Case(f"twice_{t}_to_{wide}", twice, t, wide, (xs,), doubled, _narrow_arith("add|shl"))
        )
    return out


def _no_neg_s16(ptx: str) -> bool:
    """ptxas widens ``neg.s16`` of -32768 to +32768: the negation is spelled not + add."""
    return "neg.s16" not in ptx and bool(
        re.search(r"not\.b16\s+(%rs\d+), %rs\d+;\s+add\.s16\s+\1, \1, 1;", ptx)
    )


def _no_abs_s16(ptx: str) -> bool:
    """``abs.s16`` widens like ``neg.s16``: spelled as a select of the not + add negation."""
    return "abs.s16" not in ptx and "selp.b16" in ptx and "not.b16" in ptx


def _narrow_arith(ops: str) -> Callable[[str], bool]:
    return lambda ptx: bool(re.search(rf"\b({ops})\.[bsu](8|16|32|64)\b", ptx))


NARROW_VALUES = (
    1 / 3,
    -2 / 3,
    65519.99,
    65520.0,
    1e5,
    -1e5,
    5.96e-8,
    2.98e-8,
    2.9802322387695312e-08,
    1.0 + 2.0**-11 + 2.0**-40,
    1.0 + 2.0**-8 + 2.0**-40,
    3.4e38,
    3.5e38,
    1e-39,
    1e-45,
    0.0,
    -0.0,
    math.inf,
    -math.inf,
    math.nan,
    1.00048828125,
    1.0009765625,
)


def _f16(v: float, rtz: bool = False) -> float:
    return math.nan if math.isnan(v) else _round_binary(v, 11, -14, 15, rtz)


def _ptx_narrow(ptx: str) -> bool:  # fp64 goes to fp32 first (rounded to odd), never straight
    return "cvt.rn.f16.f64" not in ptx and "cvt.rn.bf16.f64" not in ptx


def _cast_cases() -> list[Case]:
    out = []
    for src in (T.float64, T.float32):
        vals = tuple(_as(v, src) for v in NARROW_VALUES)
        for rounding in ("rtne", "rtz"):
            rtz = rounding == "rtz"
            out.append(
                Case(
                    f"cast_{src}_fp16_{rounding}",
                    lambda b, p, r=rounding: b.cast(
                        p, TileType((BLOCK,), T.float16), O.Rounding(r)
                    ),
                    src,
                    T.float16,
                    (vals,),
                    tuple(_f16(v, rtz) for v in vals),
                    _ptx_narrow,
                )
            )
            out.append(
                Case(
                    f"cast_{src}_bf16_{rounding}",
                    lambda b, p, r=rounding: b.cast(
                        p, TileType((BLOCK,), T.bfloat16), O.Rounding(r)
                    ),
                    src,
                    T.bfloat16,
                    (vals,),
                    tuple(_bf16_bits(v, rtz) for v in vals),
                    _ptx_narrow,
                )
            )
    ints = (2**24 + 2**16 + 1, -(2**24 + 2**16 + 1), 2**31 - 1, 65519, 65520, 255, -256, 2**24 + 1)
    out.append(
        Case(
            "cast_i32_bf16",
            lambda b, p: b.cast(p, TileType((BLOCK,), T.bfloat16)),
            T.int32,
            T.bfloat16,
            (ints,),
            tuple(_bf16_bits(float(v)) for v in ints),
            lambda ptx: True,
        )
    )
    out.append(
        Case(
            "cast_i32_fp16",
            lambda b, p: b.cast(p, TileType((BLOCK,), T.float16)),
            T.int32,
            T.float16,
            (ints,),
            tuple(_f16(float(v)) for v in ints),
            lambda ptx: True,
        )
    )
    return out


FMOD_PAIRS = [(5.5, 2.0), (-5.5, 2.0), (5.5, -2.0), (1.0, 0.0), (math.inf, 2.0), (2.0, math.inf),
              (1e30, 3.0), (-0.0, 1.0), (7.0, 7.0), (math.nan, 1.0), (0.1, 0.03)]  # fmt: skip


def _fmod_cases() -> list[Case]:
    out = []
    for t in (T.float16, T.float32, T.float64):
        xs = tuple(_as(p[0], t) for p in FMOD_PAIRS)
        ys = tuple(_as(p[1], t) for p in FMOD_PAIRS)
        want = tuple(
            math.nan if (math.isinf(a) or b == 0 or math.isnan(a)) else math.fmod(a, b)
            for a, b in zip(xs, ys)
        )
        out.append(
            Case(
                f"fmod_{t}",
                lambda b, p, q: b.binary(O.BinaryKind.REM, p, q),
                t,
                t,
                (xs, ys),
                want,
                lambda ptx: "div.rn" not in ptx or "fma" not in ptx,
            )
        )
    return out


CASES = {
    c.name: c
    for c in (
        *_div_cases(),
        *_shift_cases(),
        *_f2i_cases(),
        *_minmax_cases(),
        *_neg_cases(),
        *_wrapping_neg_cases(),
        *_u64_to_float_cases(),
        *_cast_cases(),
        *_fmod_cases(),
    )
}


def _bits(a: np.ndarray, t: T.ScalarType) -> tuple[np.ndarray, np.ndarray]:
    """(NaN mask, bits with NaNs zeroed): NaN payloads are not specified."""
    if t == T.bfloat16:
        nan = (a & 0x7F80) == 0x7F80
        nan &= (a & 0x7F) != 0
    elif t.is_floating():
        nan = np.isnan(a)
    else:
        return np.zeros(a.shape, bool), a
    raw = a.view(np.dtype(f"u{a.itemsize}")).copy()
    raw[nan] = 0
    return nan, raw


def assert_same_bits(got: np.ndarray, want: np.ndarray, t: T.ScalarType, what: str) -> None:
    gn, gb = _bits(got, t)
    wn, wb = _bits(want, t)
    bad = (gn != wn) | (gb != wb)
    assert not bad.any(), f"{what}: at {np.flatnonzero(bad)}: got {got[bad]}, want {want[bad]}"


def run_cpu(case: Case) -> np.ndarray:
    xs = case.arrays()
    n = xs[0].size
    out = poisoned(n, NP[case.out_t])
    status = Kernel(case.module())(1, *xs, out, n)
    assert status[0] == 0
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_gives_the_decided_bits(name: str) -> None:
    case = CASES[name]
    assert_same_bits(run_cpu(case), case.want(), case.out_t, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_ptx_encodes_the_same_semantics(name: str) -> None:
    case = CASES[name]
    compiled = CudaCompiler(assembler="none").compile(
        case.module(), Target("cuda", "sm_90a"), CompileOptions()
    )
    ptx = compiled.asm["ptx"]
    assert isinstance(ptx, str)
    assert case.ptx(ptx), ptx


def test_float_remainder_is_an_exact_fmod_on_cuda() -> None:
    compiled = CudaCompiler(assembler="none").compile(
        CASES["fmod_fp32"].module(), Target("cuda", "sm_90a"), CompileOptions()
    )
    assert "__nv_fmodf" in str(compiled.asm["llir"]) and " frem " not in str(compiled.asm["llir"])


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CASES))
def test_cuda_matches_the_cpu_bit_for_bit(name: str) -> None:
    torch = pytest.importorskip("torch")
    from tilec.backends.cuda.driver import CudaDriver, launch

    if not (torch.cuda.is_available() and CudaDriver().is_available()):
        pytest.skip("needs an NVIDIA GPU")
    case = CASES[name]
    driver = CudaDriver()
    compiled = CudaCompiler().compile(case.module(), driver.current_target(), CompileOptions())
    loaded = driver.load(compiled)
    xs = [torch.from_numpy(a).cuda() for a in case.arrays()]
    n = xs[0].numel()
    out = torch.from_numpy(poisoned(n, NP[case.out_t])).cuda()
    launch(loaded, (1,), (*xs, out, n))
    torch.cuda.synchronize()
    assert_same_bits(out.cpu().numpy(), run_cpu(case), case.out_t, name)


def test_negating_a_zero_flips_its_sign_through_the_frontend_and_folding() -> None:
    import tilec
    import tilec.language as tl

    @tilec.jit
    def neg(x, y, z, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y + offs, -tl.load(x + offs))
        tl.store(z + offs, -tl.zeros([BLOCK], tl.float32))  # a constant: folded at compile time

    x = np.array([0.0, -0.0, 1.0, -np.inf] * 4, np.float32)
    y, z = poisoned(16, np.float32), poisoned(16, np.float32)
    neg[(1,)](x, y, z, BLOCK=16)
    assert_same_bits(y, -x, T.float32, "-x")
    assert np.signbit(z).all() and (z == 0).all()
