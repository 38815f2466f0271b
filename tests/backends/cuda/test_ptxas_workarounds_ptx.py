"""The PTX spellings ptxas compiles wrongly never reach it (the kernels run on a GPU in
test_gpu_ptxas_workarounds.py): a boolean becomes 0.0 or 1.0 by selecting one of the two
constants, never through ``cvt.rn.f32.u32`` of a 0/1 integer; a store narrower than its
register stores a register of its own width, converted as an integer first; a 64-bit shift
amount is clamped to 64 in 64 bits before PTX's 32-bit amount is taken from it."""

from __future__ import annotations

import re

import pytest
from test_gpu_ptxas_workarounds import (
    abs_of_widened_int_min,
    bool_bits_or_shift,
    double_bits_to_bytes,
    negated_bool_bits,
    shift_by_double_bits,
)

import tilec
from tilec.backends.target import Target


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_no_integer_conversion_for_a_boolean(arch: str) -> None:
    sig = "*fp32, *i64, i32, i32"
    ptx = tilec.compile(bool_bits_or_shift, sig, target=Target("cuda", arch)).asm["ptx"]
    assert isinstance(ptx, str)
    body = ptx[ptx.index("{") :]
    assert not re.search(r"cvt\.rn\.f(32|64)\.u32", body), body
    assert re.search(r"selp\.(b64|b32)\s+%\w+, (1065353216|0x3F800000), 0", body), body


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_narrow_stores_take_registers_of_their_width(arch: str) -> None:
    sig = "*u64, *fp64, *i8, *u8, BLOCK=256"
    ptx = tilec.compile(double_bits_to_bytes, sig, target=Target("cuda", arch)).asm["ptx"]
    assert isinstance(ptx, str)
    stores = re.findall(
        r"^\s*(?:@!?%p\d+\s+)?st\.global\S*\.b(\d+)\s+\[[^\]]*\], (%\w+);", ptx, re.M
    )
    assert stores and all(bits == "8" and reg.startswith("%rs") for bits, reg in stores), stores
    assert "cvt.u16.u64" in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_64_bit_shift_amounts_are_clamped_before_narrowing(arch: str) -> None:
    ptx = tilec.compile(shift_by_double_bits, "*u64", target=Target("cuda", arch)).asm["ptx"]
    assert isinstance(ptx, str)
    clamp = re.search(r"min\.u64\s+(%rd\d+), %rd\d+, 64;", ptx)
    assert clamp, ptx
    narrow = re.search(rf"cvt\.u32\.u64\s+(%r\d+), {clamp.group(1)};", ptx)
    assert narrow and re.search(rf"shr\.u64\s+%rd\d+, %rd\d+, {narrow.group(1)};", ptx), ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_float_constants_are_selected_as_bits(arch: str) -> None:
    ptx = tilec.compile(negated_bool_bits, "*fp32, *i32", target=Target("cuda", arch)).asm["ptx"]
    assert isinstance(ptx, str)
    assert not re.search(r"(selp|mov)\.f(32|64)[^\n]*\b0[fd][0-9A-F]", ptx), ptx
    assert re.search(r"selp\.b32\s+%r\d+, 0xBF800000, 0x80000000", ptx), ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_integer_abs_is_spelled_without_abs(arch: str) -> None:
    sig = "*i32, *i8, *fp16, BLOCK=8"
    ptx = tilec.compile(abs_of_widened_int_min, sig, target=Target("cuda", arch)).asm["ptx"]
    assert isinstance(ptx, str)
    assert not re.search(r"\babs\.s(16|32|64)\b", ptx), ptx
    assert re.search(r"not\.b(32|64) %r", ptx), ptx
