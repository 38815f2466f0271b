"""The conformance kernels give numpy's float64 answers on a real GPU (marked gpu)."""

from __future__ import annotations

import zlib

import pytest
from cuda_harness import check_case, gpu_available
from cuda_ir_kernels import all_cases

CASES = {c.name: c for c in all_cases()}

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name: str) -> None:
    check_case(CASES[name], seed=zlib.crc32(name.encode()))
