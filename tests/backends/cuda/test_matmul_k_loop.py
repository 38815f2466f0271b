"""The K loop of Triton's tutorial matmul (the one bench/gpu.py times) as PTX, offline: what one
iteration issues per warp, pinned so that a change that slows the tensor-core path shows here
before it shows on a GPU."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
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


@functools.cache  # several tests read the same kernel (seconds of LLVM each); none changes it
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
    """num_stages=1 (the fallback: operands staged from registers, no cp.async). The K masks
    (``rk[None, :] < K - k*BK``) are recomputed in each load's layout, not moved there through
    shared memory: the only barriers are the two around the operand staging."""
    c = k_loop_counts(compile_matmul((128, 128, 32), 8, 1))
    wm, wn = warp_grid(128, 128, 8)
    assert c["mma.sync"] == (128 // (16 * wm)) * (128 // (8 * wn)) * (32 // 16)
    assert c["bar.sync"] == 2
    assert c["ld.shared"] == 0  # operands come back through ldmatrix only
    assert c["global"] == 4  # A and B: two 16-byte vectors each per thread
    assert c["local"] == c["cp.async"] == 0


# Triton's tutorial configuration (bench/gpu.py): 128x256x64 tiles, 8 warps, 3 stages
BIG = ((128, 256, 64), 8, 3)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_pipelined_k_loop_matches_tritons(arch: str, dtype: str) -> None:
    """Per iteration and warp, what Triton's mma.sync code issues: 128 mma m16n8k16 fed by 32
    ldmatrix.x4 straight from the stage slots the cp.async copies fill (12 copies of 16 bytes
    per thread), one wait and one barrier, no shared-memory round trip through registers."""
    block, warps, stages = BIG
    kernel = compile_matmul(block, warps, stages, arch, dtype)
    c = k_loop_counts(kernel)
    wm, wn = warp_grid(block[0], block[1], warps)
    per_k16 = (block[0] // (16 * wm)) * (block[1] // (8 * wn))
    assert c["mma.sync"] == per_k16 * block[2] // 16 == 128
    # A: one x4 per m16 tile, B: one x4 per two n8 tiles, for each k16 step
    assert c["ldmatrix"] == c["ldmatrix.x4"] == 32
    assert c["cp.async"] == (block[0] + block[1]) * block[2] * 2 // 16 // (32 * warps) == 12
    assert c["bar.sync"] == 1 and c["cp.async.wait_group"] == 1
    assert c["cp.async.commit_group"] == 1
    assert c["ld.shared"] == c["st.shared"] == c["global"] == c["local"] == 0
    ptx = kernel.asm["ptx"]
    assert set(re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)) == {str(stages - 2)}
    assert kernel.metadata.shared >= stages * (block[0] + block[1]) * block[2] * 2


def test_pipelined_k_loop_order() -> None:
    """Inside the loop: wait for this stage, one barrier, the first k step's ldmatrix and mma,
    then the copies of a later stage (the tensor cores start without waiting for the copies'
    address arithmetic); before the loop a barrier keeps the prologue's copies off scratch that
    other warps may still read."""
    block, warps, stages = BIG
    ptx = compile_matmul(block, warps, stages).asm["ptx"]
    assert isinstance(ptx, str)
    body = [line for line in ptx_loops.k_loop(ptx) if line and not line.startswith("//")]
    first = {
        name: next(i for i, line in enumerate(body) if line.startswith(name))
        for name in ("cp.async.wait_group", "bar.sync", "cp.async.cg", "ldmatrix", "mma.sync")
    }
    assert first["cp.async.wait_group"] < first["bar.sync"] < first["ldmatrix"]
    assert first["ldmatrix"] < first["mma.sync"] < first["cp.async.cg"]
    lines = [line.strip() for line in ptx.splitlines()]
    first_copy = next(i for i, line in enumerate(lines) if line.startswith("cp.async.cg"))
    assert any(line.startswith("bar.sync") for line in lines[:first_copy])


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_pipelined_matmul_assembles_without_spills(arch: str) -> None:
    block, warps, stages = BIG
    got = assembles(compile_matmul(block, warps, stages, arch), arch)
    assert got.cubin and got.n_spills == 0
    assert got.n_regs <= 255
