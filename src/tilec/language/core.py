"""The core of ``tl``: builtins the frontend implements, loop iterators and small enums.

Every builtin is defined once in tilec.frontend (with Triton's parameter names) and re-exported
here; calling one outside a kernel raises a UsageError.
"""

from __future__ import annotations

import enum
import functools
import inspect
from typing import Any

from ..constexpr import constexpr_type  # noqa: F401 - Triton's tl.core.constexpr_type
from ..errors import TileTypeError, UnsupportedFeature
from ..frontend.builtins_atomic import (
    atomic_add,
    atomic_and,
    atomic_cas,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_xchg,
    atomic_xor,
)
from ..frontend.builtins_blockptr import (
    advance,
    load_tensor_descriptor,
    make_block_ptr,
    make_tensor_descriptor,
    store_tensor_descriptor,
)
from ..frontend.builtins_debug import (
    assume,
    debug_barrier,
    device_assert,
    device_print,
    max_constancy,
    max_contiguous,
    multiple_of,
    static_assert,
    static_print,
)
from ..frontend.builtins_math import (
    abs_ as abs,
)
from ..frontend.builtins_math import (
    ceil,
    clamp,
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
    maximum,
    minimum,
    rsqrt,
    sin,
    sqrt,
    sqrt_rn,
    umulhi,
    where,
)
from ..frontend.builtins_memory import load, store
from ..frontend.builtins_reduce import associative_scan, dot, reduce
from ..frontend.builtins_shape import (
    arange,
    broadcast,
    broadcast_to,
    cast,
    cat,
    expand_dims,
    flip,
    full,
    interleave,
    item,
    join,
    num_programs,
    permute,
    program_id,
    ravel,
    reshape,
    split,
    trans,
    view,
    zeros,
)
from ..frontend.elementwise_map import map_elementwise
from ..frontend.ranges import range, static_range
from ..frontend.values import BlockPointer as block_pointer
from ..frontend.values import Tensor as tensor
from ..frontend.values import TensorDescriptor as tensor_descriptor
from ..ir import types as ir
from ..ir.types import (
    bfloat16,
    float8e4b8,
    float8e4b15,
    float8e4nv,
    float8e5,
    float8e5b16,
    float16,
    float32,
    float64,
    int1,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .aggregate import aggregate as _aggregate  # noqa: F401 - Triton's tl.core._aggregate
from .aggregate import aggregate_replace
from .dtypes import dtype  # noqa: F401 - Triton's tl.core.dtype

tensor_descriptor_base = tensor_descriptor


class _NoSemantic:
    """What a ``@tl.core.builtin`` function receives as ``_semantic``: tilec has no Triton
    semantic object, so using it is refused by name."""

    def __getattr__(self, name: str) -> Any:
        raise UnsupportedFeature(
            f"Triton's _semantic.{name} in a @tl.core.builtin function: tilec builds its IR "
            "without Triton's semantic object; write the function in tl code under @jit"
        )


def builtin(fn: Any) -> Any:
    """Triton's ``tl.core.builtin``: a Python function kernels call with their values (tensors
    too), run while the kernel compiles. One taking ``_semantic`` gets an object that refuses
    every use (tilec has no Triton semantic object)."""
    takes_semantic = "_semantic" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if takes_semantic:
            kwargs.setdefault("_semantic", _NoSemantic())
        return fn(*args, **kwargs)

    call.__tilec_takes_kernel_values__ = True  # type: ignore[attr-defined]
    call.__triton_builtin__ = True  # type: ignore[attr-defined]
    return call


def must_use_result(fn: Any, note: str | bool = True) -> Any:
    """Mark a @jit or constexpr function whose result must be used, as Triton's decorator of
    the same name: a call standing alone as a statement is a compile error naming the call.
    ``@must_use_result("note")`` adds the note to that error."""
    if isinstance(fn, str):
        text = fn
        return lambda f: must_use_result(f, text)
    fn._must_use_result = note  # Triton's attribute, which hosts may read
    return fn


def get_int_dtype(bitwidth: int, signed: bool) -> Any:
    """Triton's ``tl.core.get_int_dtype``: the integer type of ``bitwidth`` bits (int1 for 1,
    signed or not; uint8..uint64, int8..int64). Kernels call it with compile-time values."""
    if bitwidth == 1:
        return ir.int1
    found = ir.BY_NAME.get(f"{'i' if signed else 'u'}{bitwidth}")
    if found is None:
        kind = "signed" if signed else "unsigned"
        raise TileTypeError(f"get_int_dtype: no {kind} integer type of {bitwidth} bits")
    return found


class PropagateNan(enum.Enum):
    """Whether minimum/maximum/clamp return NaN when an operand is NaN."""

    NONE = 0
    ALL = 0xFFFF


__all__ = [
    "PropagateNan", "abs", "advance", "aggregate_replace", "arange", "associative_scan", "assume", "atomic_add",
    "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg",
    "atomic_xor", "bfloat16", "block_pointer", "broadcast", "broadcast_to", "cast", "cat", "ceil",
    "clamp", "cos", "debug_barrier", "device_assert", "device_print", "div_rn", "dot", "erf",
    "exp", "exp2", "expand_dims", "fdiv", "flip", "float8e4b8", "float8e4b15", "float8e4nv", "float8e5",
    "float8e5b16", "float16", "float32", "float64", "floor", "fma",
    "full", "int1", "int8", "int16", "int32", "int64", "interleave", "item", "join", "load",
    "load_tensor_descriptor", "log", "log2", "make_block_ptr", "make_tensor_descriptor", "map_elementwise",
    "max_constancy", "max_contiguous", "maximum", "minimum", "multiple_of", "num_programs",
    "permute", "program_id", "range", "ravel", "reduce", "reshape", "rsqrt", "sin", "split",
    "sqrt", "sqrt_rn", "static_assert", "static_print", "static_range", "store",
    "store_tensor_descriptor", "tensor", "tensor_descriptor", "tensor_descriptor_base", "trans",
    "uint8", "uint16", "uint32", "uint64", "umulhi", "view", "where", "zeros",
]  # fmt: skip
