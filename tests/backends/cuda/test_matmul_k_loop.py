"""The K loop of Triton's tutorial matmul (the one bench/gpu.py times) as PTX, offline: what one
iteration issues per warp, pinned so that a change that slows the tensor-core path shows here
before it shows on a GPU."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path

import cuda_tl_kernels as T
import ptx_loops
import pytest

from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.cuda.mma import warp_grid
from tilec.backends.target import CompileOptions, Target
from tilec.frontend import build_module
from tilec.ir.argspec import ArgKind

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import spec


def compile_matmul(block, warps: int, stages: int, arch: str = "sm_80", dtype: str = "fp16"):  # type: ignore[no-untyped-def]
    """The tutorial matmul with every integer argument a multiple of 16 and unit strides as
    constexpr 1, as the runtime specializes a contiguous fp16 matmul."""
    bm, bn, bk = block
    sig = (f"*{dtype}", f"*{dtype}", f"*{dtype}", "i32", "i32", "i32", "i32", 1, "i32", 1,
           "i32", 1, bm, bn, bk, 8)  # fmt: skip
    names = list(inspect.signature(T.matmul.fn).parameters)
    specs = [
        dataclasses.replace(a, divisible_by_16=True) if a.kind is ArgKind.SCALAR else a
        for a in (spec(n, s) for n, s in zip(names, sig))
    ]
    module = build_module(T.matmul.fn, specs)
    options = CompileOptions(num_warps=warps, num_stages=stages)
    return CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options)


def k_loop_counts(kernel):  # type: ignore[no-untyped-def]
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    return ptx_loops.counts(ptx_loops.k_loop(ptx))


def assembles(kernel, arch: str = "sm_80"):  # type: ignore[no-untyped-def]
    ptxas = toolchain.ptxas_path()
    if ptxas is None:
        pytest.skip("no ptxas")
    return assemble.with_ptxas(kernel.asm["ptx"], arch, ptxas)


def test_unpipelined_k_loop_converts_no_mask() -> None:
    """The K masks (``rk[None, :] < K - k*BK``) are recomputed in each load's layout, not moved
    there through shared memory: the only barriers are the two around the operand staging."""
    c = k_loop_counts(compile_matmul((128, 128, 32), 8, 1))
    wm, wn = warp_grid(128, 128, 8)
    assert c["mma.sync"] == (128 // (16 * wm)) * (128 // (8 * wn)) * (32 // 16)
    assert c["bar.sync"] == 2
    assert c["ld.shared"] == 0  # operands come back through ldmatrix only
    assert c["global"] == 4  # A and B: two 16-byte vectors each per thread
    assert c["local"] == 0
