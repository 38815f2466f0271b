"""``tl.math``: the elementwise math functions, under the names Triton's ``tl.math`` uses."""

from ..frontend.builtins_math import (
    abs_ as abs,
)
from ..frontend.builtins_math import (
    ceil,
    cos,
    div_rn,
    erf,
    exp,
    exp2,
    fdiv,
    floor,
    fma,
    log,
    log2,
    rsqrt,
    sin,
    sqrt,
    sqrt_rn,
    umulhi,
)
from ..frontend.builtins_math import (
    maximum as max,
)
from ..frontend.builtins_math import (
    minimum as min,
)
from .standard import cdiv, sigmoid, softmax

__all__ = [
    "abs", "cdiv", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma", "log",
    "log2", "max", "min", "rsqrt", "sigmoid", "sin", "softmax", "sqrt", "sqrt_rn", "umulhi",
]  # fmt: skip
