"""Read-modify-write atomics need 32/64-bit elements, as in Triton: 8/16-bit integers and fp8
are refused, fp16/bf16 only for atomic_add (which still works)."""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.run import jit
from tilec.errors import CompileError


@jit
def rmw_kernel(out_ptr, OP: tl.constexpr, DT: tl.constexpr):
    p = out_ptr.to(tl.pointer_type(DT))
    if OP == "add":
        tl.atomic_add(p, 1)
    elif OP == "max":
        tl.atomic_max(p, 1)
    else:
        tl.atomic_xchg(p, 1)


@pytest.mark.parametrize(
    "op, dtype",
    [("add", "int8"), ("add", "uint8"), ("add", "int16"), ("add", "uint16"),
     ("add", "float8e4nv"), ("max", "float16"), ("xchg", "bfloat16")],
)  # fmt: skip
def test_narrow_elements_are_refused(op, dtype):
    out = np.zeros(4, np.float64)
    with pytest.raises(CompileError, match=f"atomic_{op} does not support"):
        rmw_kernel[(1,)](out, op, getattr(tl, dtype))


@pytest.mark.parametrize("dtype, np_dtype", [("float16", np.float16), ("int32", np.int32)])
def test_atomic_add_of_wide_enough_elements(dtype, np_dtype):
    out = np.zeros(4, np_dtype)
    rmw_kernel[(3,)](out, "add", getattr(tl, dtype))
    np.testing.assert_array_equal(out, np.array([3, 0, 0, 0], np_dtype))
