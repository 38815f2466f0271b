"""The PTX of memory-bound kernels has the shape that makes them fast: 128-bit global accesses
when alignment and divisibility allow, warp shuffles for reductions, no local memory."""

from __future__ import annotations

import re

import cuda_tl_kernels as K

from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.frontend import build_module
from tilec.ir import types as T
from tilec.ir.argspec import constexpr_arg, pointer_arg, scalar_arg


def _ptx(fn, specs, num_warps: int = 4) -> str:  # type: ignore[no-untyped-def]
    module = build_module(fn, specs)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_90a"), CompileOptions(num_warps=num_warps)
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    return ptx


def test_softmax_rows_load_and_store_16_bytes_and_reduce_with_shuffles() -> None:
    specs = [
        pointer_arg("out_ptr", T.float32), pointer_arg("in_ptr", T.float32),
        scalar_arg("stride", T.int32, divisible_by_16=True), scalar_arg("n_rows", T.int32),
        scalar_arg("n_cols", T.int32, divisible_by_16=True), constexpr_arg("BLOCK", 4096),
    ]  # fmt: skip
    ptx = _ptx(K.softmax.fn, specs, num_warps=8)
    assert len(re.findall(r"ld\.global\.v4\.b32", ptx)) == 4  # 4096 floats / 256 threads / 4
    assert len(re.findall(r"st\.global\.v4\.b32", ptx)) == 4
    assert len(re.findall(r"shfl\.sync\.bfly", ptx)) == 10  # two reductions, five steps each
    assert ".local" not in ptx


def test_vector_add_is_one_v4_access_per_operand_and_repetition() -> None:
    specs = [
        pointer_arg("x_ptr", T.float32), pointer_arg("y_ptr", T.float32), pointer_arg("out_ptr", T.float32),
        scalar_arg("n", T.int32, divisible_by_16=True), constexpr_arg("BLOCK", 1024),
    ]  # fmt: skip
    ptx = _ptx(K.add.fn, specs)
    assert len(re.findall(r"ld\.global\.v4\.b32", ptx)) == 4  # 2 inputs x 1024/(128*4) repetitions
    assert len(re.findall(r"st\.global\.v4\.b32", ptx)) == 2
    assert "ld.global.b32" not in ptx and ".local" not in ptx


def _row_copy_accesses(divisible: bool, scale: int) -> dict[str, int]:
    specs = [
        pointer_arg("src", T.float16), pointer_arg("dst", T.float16),
        scalar_arg("stride", T.int32, divisible_by_16=divisible),
        constexpr_arg("SCALE", scale), constexpr_arg("BM", 32), constexpr_arg("BN", 64),
    ]  # fmt: skip
    ptx = _ptx(K.copy_rows.fn, specs)
    found = re.findall(r"\b(ld|st)\.global(\.v\d)?\.b(\d+)", ptx)
    return {f"{op}{vec or ''}.b{bits}": found.count((op, vec, bits)) for op, vec, bits in set(found)}


def test_row_starts_of_an_unaligned_stride_are_not_read_as_16_byte_vectors() -> None:
    # rows 2*stride bytes apart start at any even address unless stride % 16 == 0: the first
    # element of each row may not begin a 16-byte access (a misaligned-address fault on a GPU)
    assert _row_copy_accesses(divisible=False, scale=1) == {"ld.b16": 16, "st.v4.b32": 2}
    assert _row_copy_accesses(divisible=True, scale=1) == {"ld.v4.b32": 2, "st.v4.b32": 2}
    # (arange * 8 * stride) holds only multiples of 8 elements (16 bytes), whatever the stride
    assert _row_copy_accesses(divisible=False, scale=8) == {"ld.v4.b32": 2, "st.v4.b32": 2}
