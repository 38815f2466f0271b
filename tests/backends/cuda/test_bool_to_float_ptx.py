"""A boolean becomes 0.0 or 1.0 by selecting one of the two constants, never through
``cvt.rn.f32.u32`` of a 0/1 integer: ptxas mishandles that conversion when its bits are then
or-ed into an integer (tests/backends/cuda/test_gpu_bool_to_float.py runs it on a GPU)."""

from __future__ import annotations

import re

import pytest
from test_gpu_bool_to_float import bool_bits_or_shift

import tilec
from tilec.backends.target import Target


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_no_integer_conversion_for_a_boolean(arch: str) -> None:
    ptx = tilec.compile(
        bool_bits_or_shift, "*u8, *i64, BLOCK=128", target=Target("cuda", arch)
    ).asm["ptx"]
    assert isinstance(ptx, str)
    body = ptx[ptx.index("{") :]
    assert not re.search(r"cvt\.rn\.f(32|64)\.u32", body), body
    assert re.search(r"selp\.(b64|b32|f32)\s+%\w+, (1065353216|0f3F800000), 0", body), body
