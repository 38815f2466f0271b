"""Registers of Triton's persistent fused-softmax tutorial kernel (02) for sm_90a, offline.

The tutorial sizes its grid from ``n_regs``: 256 threads per program fit 2 programs on an SM
up to 128 registers, 3 up to 85. Both ways ptxas assembles are pinned: whole-program (the
ptxas command line, as Triton runs it) and relocatable (``-c``, which is what nvJitLink does
and what the H200 reported: 100 and 172 registers before fp32 division went in groups).
Triton's own kernel takes 61 and 118 (whole-program) at these sizes.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest

import tilec
import tilec.language as tl
from tilec import config
from tilec.backends.cuda import toolchain

PTXAS = toolchain.ptxas_path()
pytestmark = pytest.mark.skipif(PTXAS is None, reason="needs ptxas")


@tilec.jit
def softmax_kernel(  # type: ignore[no-untyped-def]
    output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
    BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr,
):  # fmt: skip
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


@functools.cache  # three tests read each block size's PTX (seconds of LLVM each)
def _ptx(block: int) -> str:
    """The kernel for n_cols up to ``block``: num_warps=8 and num_stages=4 as the tutorial
    picks them on an H100/H200; every i32 divisible by 16, as torch's strides and sizes are."""
    signature = (
        f"*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, BLOCK_SIZE={block}, num_stages=4"
    )
    with config.override(cache_enabled=False):
        compiled = tilec.compile(
            softmax_kernel, signature, target="cuda:sm_90a", num_warps=8, num_stages=4
        )
    return str(compiled.asm["ptx"])


def _figures(block: int, relocatable: bool, tmp_path: Path) -> tuple[int, int]:
    """(registers, spill-store bytes) as ptxas reports them."""
    src = tmp_path / "softmax.ptx"
    src.write_text(_ptx(block))
    flags = ["-c"] if relocatable else []
    cmd = [str(PTXAS), "-arch=sm_90a", "-O3", "-v", *flags, str(src), "-o", str(tmp_path / "o")]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    regs = re.search(r"Used (\d+) registers", log)
    spills = re.search(r"(\d+) bytes spill stores", log)
    assert regs and spills, log
    return int(regs.group(1)), int(spills.group(1))


# (BLOCK_SIZE, relocatable): the most registers allowed (measured with ptxas 13.0: 63, 76,
# 116, 112; the limits are the occupancy steps at 256 threads)
LIMITS = {(8192, False): 85, (8192, True): 85, (16384, False): 128, (16384, True): 128}


@pytest.mark.parametrize(("block", "relocatable"), sorted(LIMITS))
def test_registers_stay_under_the_occupancy_step(
    block: int, relocatable: bool, tmp_path: Path
) -> None:
    regs, spills = _figures(block, relocatable, tmp_path)
    assert spills == 0
    assert regs <= LIMITS[block, relocatable], regs


def test_the_row_max_is_one_max_per_element() -> None:
    ptx = _ptx(16384)
    assert len(re.findall(r"\bmax\.f32\b", ptx)) >= 64  # 64 elements per thread
    assert "setp.nan" not in ptx  # no compare-and-select spelling of the maximum
