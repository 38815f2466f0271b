"""``tl.extra.libdevice``: the math library Triton kernels import by that name.

Every function is a MathOp (CUDA lowers it to libdevice, the CPU backend to the host's math
routines). Using a libdevice name that has no MathOp is an UnsupportedFeature naming it.
"""

from __future__ import annotations

from typing import Any

from ...errors import UnsupportedName
from ...frontend.builtin import Builtin
from ...frontend.builtins_math import math_function
from ...ir.ops import MATH_FUNCTIONS
from .libdevice_composed import COMPOSED

# libdevice spellings that differ from the MathOp name
_ALIASES = {
    "isinfd": "isinf", "isnand": "isnan", "finitef": "isfinite", "isfinited": "isfinite",
    "signbitd": "signbit", "mul_hi": "mulhi", "umul_hi": "umulhi", "fabs": "abs", "fmaf": "fma",
    "popcount": "popc",
}  # fmt: skip

_cache: dict[str, Builtin] = {}


def __getattr__(name: str) -> Any:
    """Functions of a MathOp are created on first use."""
    fn = _ALIASES.get(name, name)
    if fn in COMPOSED:  # written in tl from the MathOps
        return COMPOSED[fn]
    if fn not in MATH_FUNCTIONS:
        raise UnsupportedName(f"libdevice.{name} is not supported by tilec")
    if name not in _cache:
        _cache[name] = math_function(fn, name)
    return _cache[name]


def __dir__() -> list[str]:
    return sorted(set(MATH_FUNCTIONS) | set(_ALIASES) | set(COMPOSED))
