"""Storing compile-time values: a constexpr or a number assigned to a name is a tensor where a
tensor's attributes are asked for (``value = 1; value.dtype``), as in Triton.

Triton's ``test_store_constant`` and ``test_constexpr`` are the model; the same kernels run on
CUDA (marked gpu).
"""

from __future__ import annotations

import numpy as np
import pytest

import tilec.language as tl
from support.devices import DEVICES, assert_assembles, dev, host, host_np, torch_dtype
from support.run import jit


@jit
def store_constant(output_ptr, n_elements, BLOCK_SIZE: tl.constexpr, CONSTANT_FIELD: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if CONSTANT_FIELD == "value":
        value = 1
        output = tl.full([BLOCK_SIZE], value=value, dtype=value.dtype)
        mask = offsets < n_elements
    elif CONSTANT_FIELD == "mask":
        output = offsets < n_elements
        mask = False
    tl.store(output_ptr + offsets, output, mask=mask)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "int64", "float16",
                                   "bfloat16", "float32", "float64"])  # fmt: skip
@pytest.mark.parametrize("field", ["value", "mask"])
def test_store_constant(device, dtype, field):
    import torch

    out = dev(torch.zeros(128, dtype=torch_dtype(dtype)), device)
    store_constant[(1,)](out, 128, BLOCK_SIZE=128, CONSTANT_FIELD=field)
    expect = 1 if field == "value" else 0
    assert torch.equal(host(out), torch.full((128,), expect, dtype=torch_dtype(dtype)))


@jit
def store_literal_typed(out_ptr, LITERAL: tl.constexpr, EXPECT: tl.constexpr):
    val = LITERAL
    tl.static_assert(val.dtype == EXPECT)
    tl.store(out_ptr.to(tl.pointer_type(val.dtype)), val)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(
    "literal, dtype, expect",
    [
        (1e50, np.float64, tl.float64),
        (1e10, np.float32, tl.float32),
        (1.0, np.float32, tl.float32),
        (float("inf"), np.float32, tl.float32),
        (float("nan"), np.float32, tl.float32),
        (-0.0, np.float32, tl.float32),
        (5, np.int32, tl.int32),
        (2**40, np.int64, tl.int64),
        (3_000_000_000, np.uint32, tl.uint32),
        (True, np.bool_, tl.int1),
    ],
)
def test_a_constant_takes_tritons_tensor_type(device, literal, dtype, expect):
    out = dev(np.zeros(2, np.float64), device)  # 16 bytes, read back as the literal's type
    store_literal_typed[(1,)](out, LITERAL=literal, EXPECT=expect)
    size = np.dtype(dtype).itemsize
    got = host_np(out).view(np.uint8)[:size].tobytes()
    assert got == np.array(literal).astype(dtype).tobytes()  # bit for bit: -0.0 and NaN too


@jit
def store_constexprs(p_tile, p_scalar, V: tl.constexpr, B: tl.constexpr):
    tl.store(p_tile + tl.arange(0, B), V)
    tl.store(p_scalar, V)
    v = V
    tl.store(p_scalar + 1, v.to(p_scalar.dtype.element_ty))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float16", "bfloat16",
                                   "float32", "bool"])  # fmt: skip
@pytest.mark.parametrize("value", [True, False, 1, 0, 3])
def test_store_constexpr_int_and_bool(device, dtype, value):
    import torch

    td = torch_dtype(dtype)
    tile, scalar = (
        dev(torch.full((4,), 9, dtype=td), device),
        dev(torch.full((2,), 9, dtype=td), device),
    )
    store_constexprs[(1,)](tile, scalar, V=value, B=4)
    expect = torch.tensor(value).to(td)
    assert (host(tile) == expect).all() and (host(scalar) == expect).all()


@pytest.mark.parametrize(
    "fn, sigs",
    [
        (store_constant, ("*fp16", "i32", 128, "value")),
        (store_literal_typed, ("*fp64", 2**40, tl.int64)),
        (store_constexprs, ("*i8", "*i8", True, 4)),
    ],
)
def test_cuda_lowering_assembles(fn, sigs):
    assert_assembles(fn, *sigs)
