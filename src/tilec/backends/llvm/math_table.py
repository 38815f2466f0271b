"""One math table: a row per tl math function (ir.ops.MATH_FUNCTIONS), an entry per target
saying how that target computes one element of it.

The IR's table says which functions exist and what they take; this one says how: the same
instructions everywhere (llvm/exact_math), a target-independent intrinsic, the target's math
library (libm on the CPU, libdevice on NVPTX), or the backend's own emitter. cpu/mathops.py and
cuda/math_functions.py dispatch on it, so a function a target lacks is a ``None`` entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ...errors import UnsupportedFeature


class Via(Enum):
    """How a target computes a math function."""

    EXACT = "exact"  # llvm/exact_math: integers and float class tests, one spelling everywhere
    INTRINSIC = "intrinsic"  # llvm.<name>.<type>, every operand of the element type
    LIBRARY = "library"  # a function of the target's math library, by precision
    POLYNOMIAL = "polynomial"  # llvm/mathlib's vectorizable fp32 code, else the library
    ALIAS = "alias"  # computed as the function ``name`` of this table
    OWN = "own"  # the backend's own emitter (approximations, compositions), which may fall
    # back to the entry's library symbols


@dataclass(frozen=True)
class Entry:
    """One target's way of computing a function: ``name`` is the intrinsic's or the alias's;
    ``f32``/``f64`` the library symbols ("" where the library has none)."""

    via: Via
    name: str = ""
    f32: str = ""
    f64: str = ""


@dataclass(frozen=True)
class Row:
    """A math function: its entry per target (None: the target does not have it), whether it
    is exact on fp16/bf16 operands as they are, and whether it is one or two instructions."""

    fn: str
    cpu: Entry | None
    cuda: Entry | None
    exact16: bool = False
    cheap: bool = False


EXACT = Entry(Via.EXACT)
OWN = Entry(Via.OWN)


def _intrinsic(name: str) -> Entry:
    return Entry(Via.INTRINSIC, name)


def _libm(name: str, f32: bool = True) -> Entry:
    """C's ``<name>f`` / ``<name>`` (``f32`` False: double only, as the Bessel functions)."""
    return Entry(Via.LIBRARY, f32=name + "f" if f32 else "", f64=name)


def _nv(name: str, f64: bool = True) -> Entry:
    """libdevice's ``__nv_<name>f`` / ``__nv_<name>``."""
    return Entry(Via.LIBRARY, f32=f"__nv_{name}f", f64=f"__nv_{name}" if f64 else "")


def _nv_f32(symbol: str) -> Entry:
    """A libdevice function that takes fp32 only."""
    return Entry(Via.LIBRARY, f32=symbol)


def _own_nv(name: str) -> Entry:
    """The backend's own code where it applies, else libdevice's ``__nv_<name>f`` / ``<name>``."""
    return Entry(Via.OWN, f32=f"__nv_{name}f", f64=f"__nv_{name}")


def _alias(name: str) -> Entry:
    return Entry(Via.ALIAS, name)


def _poly(name: str) -> Entry:
    return Entry(Via.POLYNOMIAL, f64=name)


def _rows() -> tuple[Row, ...]:
    exact = ("not", "umulhi", "mulhi", "popc", "clz", "ffs", "brev")
    predicates = ("isnan", "isinf", "isfinite", "signbit")
    rounding = ("floor", "ceil", "trunc", "rint", "nearbyint", "round")
    libm = ("tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc",
            "cbrt", "expm1", "log1p", "log10", "lgamma", "tgamma", "logb", "pow", "atan2",
            "fmod", "hypot", "nextafter", "fdim", "remainder")  # fmt: skip
    return (
        *(Row(fn, EXACT, EXACT, cheap=fn == "not") for fn in exact),
        *(Row(fn, EXACT, EXACT, cheap=True) for fn in predicates),
        *(
            Row(
                fn,
                _intrinsic(fn),
                _intrinsic(fn),
                exact16=fn not in ("nearbyint", "round"),
                cheap=True,
            )
            for fn in rounding
        ),
        *(Row(fn, _libm(fn), _nv(fn)) for fn in libm),
        *(Row(fn, _poly(fn), _own_nv(fn)) for fn in ("exp", "exp2", "log", "log2", "sin", "cos")),
        Row("tanh", _poly("tanh"), _own_nv("tanh")),
        Row("erf", _poly("erf"), _nv("erf")),
        *(Row(fn, _libm(fn, f32=False), _nv(fn)) for fn in ("j0", "j1", "y0", "y1")),
        Row("neg", OWN, OWN, exact16=True, cheap=True),
        Row("abs", _intrinsic("fabs"), _intrinsic("fabs"), exact16=True, cheap=True),
        Row("fma", _intrinsic("fma"), _intrinsic("fma"), exact16=True, cheap=True),
        Row("fmin", _intrinsic("minnum"), _intrinsic("minnum"), exact16=True, cheap=True),
        Row("fmax", _intrinsic("maxnum"), _intrinsic("maxnum"), exact16=True, cheap=True),
        Row("copysign", *[_intrinsic("copysign")] * 2, exact16=True, cheap=True),
        Row("sqrt", _intrinsic("sqrt"), OWN),
        Row("sqrt_rn", _intrinsic("sqrt"), _intrinsic("sqrt")),
        Row("rsqrt", OWN, _own_nv("rsqrt")),
        Row("rcp_rn", OWN, Entry(Via.LIBRARY, f32="__nv_frcp_rn", f64="__nv_drcp_rn")),
        Row("div_rn", OWN, Entry(Via.LIBRARY, f32="__nv_fdiv_rn", f64="__nv_ddiv_rn")),
        *(
            Row(f"div_{r}", None, Entry(Via.LIBRARY, f32=f"__nv_fdiv_{r}", f64=f"__nv_ddiv_{r}"))
            for r in ("rz", "rd", "ru")
        ),
        Row("fdiv_ieee", OWN, OWN),
        Row("fast_dividef", OWN, _nv_f32("__nv_fast_fdividef")),
        Row("saturatef", OWN, _nv_f32("__nv_saturatef"), cheap=True),
        *(Row(fn, OWN, _nv(fn)) for fn in ("exp10", "rcbrt", "sinpi", "cospi", "erfinv")),
        *(Row(fn, OWN, _nv(fn)) for fn in ("erfcinv", "normcdf", "normcdfinv", "erfcx")),
        Row("ldexp", OWN, _nv("ldexp")),
        Row("ilogb", OWN, _nv("ilogb")),  # the CPU's from the bits (exact_math.ilogb)
        *(
            Row(f"fast_{fn}f", _alias(fn), _nv_f32(f"__nv_fast_{fn}f"))
            for fn in ("exp", "log", "log2", "sin", "cos", "tan", "log10", "exp10", "pow")
        ),
    )


MATH: dict[str, Row] = {r.fn: r for r in _rows()}


def row(fn: str) -> Row:
    """The row of ``fn`` (every name of ir.ops.MATH_FUNCTIONS has one)."""
    r = MATH.get(fn)
    if r is None:
        raise UnsupportedFeature(f"math function {fn!r}")
    return r
