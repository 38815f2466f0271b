"""``tilec.language`` (imported as ``tl``): the tile language kernels are written in.

Its dtypes are the IR's scalar types (``tl.float32 is tilec.ir.types.float32``).
"""

from ..ir.types import (
    PointerType as pointer_type,
)
from ..ir.types import (
    ScalarType as dtype,
)
from ..ir.types import (
    bfloat16,
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
from .constexpr import constexpr

__all__ = [
    "bfloat16",
    "constexpr",
    "dtype",
    "float16",
    "float32",
    "float64",
    "int1",
    "int8",
    "int16",
    "int32",
    "int64",
    "pointer_type",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]
