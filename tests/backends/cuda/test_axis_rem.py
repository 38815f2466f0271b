"""Axis analysis of ``x % n``: a run of consecutive indices stays consecutive between multiples
of ``n`` (Triton's rule), so the tutorial matmul's ``(pid*BN + arange) % N`` B tile is read in
16-byte vectors when N is a multiple of 16 (offline: PTX only)."""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from pathlib import Path

import pytest

import tilec
import tilec.language as tl
from tilec.backends.cuda.axis_info import AxisAnalysis
from tilec.backends.cuda.compiler import CudaCompiler, kernel_of
from tilec.backends.target import CompileOptions, Target
from tilec.frontend import build_module
from tilec.ir import ops as O
from tilec.ir.argspec import ArgKind

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import spec


@tilec.jit
def wrapped_rows(x_ptr, y_ptr, n, OFF: tl.constexpr, BLOCK: tl.constexpr):
    r = (tl.program_id(0) * BLOCK + OFF + tl.arange(0, BLOCK)) % n
    tl.store(y_ptr + r, tl.load(x_ptr + r))


def _module(fn, *sigs, divisible=True):  # type: ignore[no-untyped-def]
    names = list(inspect.signature(fn).parameters)
    specs = [spec(n, s) for n, s in zip(names, sigs)]
    if divisible:
        specs = [
            dataclasses.replace(a, divisible_by_16=True) if a.kind is ArgKind.SCALAR else a
            for a in specs
        ]
    return build_module(fn, specs)


def _rem_info(module):  # type: ignore[no-untyped-def]
    func = kernel_of(module)
    rem = next(
        op for op in func.walk() if isinstance(op, O.BinaryOp) and op.kind is O.BinaryKind.REM
    )
    return AxisAnalysis(func)[rem.result]


@pytest.mark.parametrize(
    "off, divisible, contiguity",
    [(0, True, 16), (8, True, 8), (4, True, 4), (0, False, 1), (1, True, 1)],
)
def test_rem_keeps_runs_between_multiples_of_n(off: int, divisible: bool, contiguity: int) -> None:
    # runs of 64 starting at pid*64 + off, cut at multiples of n (a multiple of 16 or unknown)
    module = _module(wrapped_rows.fn, "*fp16", "*fp16", "i32", off, 64, divisible=divisible)
    info = _rem_info(module)
    assert info.contiguity == (contiguity,)
    assert info.divisibility[0] == contiguity or contiguity == 1


def test_tutorial_matmul_reads_b_in_16_byte_vectors() -> None:
    import cuda_tl_kernels as T

    sig = ("*fp16", "*fp16", "*fp16", "i32", "i32", "i32", "i32", 1, "i32", 1, "i32", 1,
           64, 64, 32, 8)  # fmt: skip
    module = _module(T.matmul.fn, *sig)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_80"), CompileOptions(num_warps=4, num_stages=1)
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    loads = re.findall(r"ld\.global(?:\.nc)?\.(\w+)", ptx)
    assert loads and set(loads) == {"v4"}, loads
