"""``tilec.language`` (imported as ``tl``): the tile language kernels are written in.

Its dtypes are the IR's scalar types (``tl.float32 is tilec.ir.types.float32``); its builtins
are implemented by tilec.frontend; its library functions (softmax, sort, rand ...) are tl code.
"""

from ..constexpr import constexpr, constexpr_type
from ..errors import UnsupportedName
from ..frontend.const_pointers import const
from ..frontend.tuple_type import tuple_type
from ..ir.types import PointerType as pointer_type
from . import core, extra, math, random
from .core import *  # noqa: F403
from .core import __all__ as _core_all
from .dot_scaled import dot_scaled
from .dtypes import block_type, dtype, pi32_t, str_to_ty
from .random import (
    pair_uniform_to_normal,
    philox,
    philox_impl,
    rand,
    rand4x,
    randint,
    randint4x,
    randn,
    randn4x,
    uint_to_uniform_float,
)
from .standard import (
    argmax,
    argmin,
    cdiv,
    condition,
    cumprod,
    cumsum,
    expect_zero,
    full_like,
    gather,
    histogram,
    max,
    min,
    sigmoid,
    softmax,
    sort,
    squeeze,
    sum,
    swizzle2d,
    topk,
    unsqueeze,
    xor_sum,
    zeros_like,
)
from .tuples import tuple

bool_ = core.int1
TRITON_MAX_TENSOR_NUMEL = 1048576

# Triton names tilec does not implement: using one in a kernel is a clear compile error.
_UNSUPPORTED = {
    "inline_asm_elementwise": "tl.inline_asm_elementwise (inline PTX)",
}


def __getattr__(name: str) -> object:
    if name in _UNSUPPORTED:
        raise UnsupportedName(f"{_UNSUPPORTED[name]} is not supported by tilec")
    raise AttributeError(f"module 'tilec.language' has no attribute {name!r}")


__all__ = [
    *_core_all,  # builtins and every dtype
    "TRITON_MAX_TENSOR_NUMEL", "argmax", "argmin", "block_type", "bool_", "cdiv", "condition",
    "const", "constexpr", "constexpr_type", "expect_zero",
    "cumprod", "cumsum", "dot_scaled", "dtype", "extra", "full_like", "gather", "histogram", "math", "max",
    "min", "pair_uniform_to_normal", "philox", "philox_impl", "pointer_type", "rand", "rand4x",
    "randint", "randint4x", "randn", "randn4x", "random", "sigmoid", "softmax", "sort", "sum",
    "swizzle2d", "topk", "tuple", "tuple_type", "uint_to_uniform_float", "xor_sum", "zeros_like", "pi32_t",
    "squeeze", "str_to_ty", "unsqueeze",
]  # fmt: skip
