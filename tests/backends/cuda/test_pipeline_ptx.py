"""Software pipelining offline: loops with ``tl.range(num_stages=S)`` lower to cp.async copies,
commit/wait groups and stage buffers on sm_80+, and ptxas accepts them (no GPU needed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pipeline_kernels as K
import pytest

from tilec import config
from tilec.backends.cuda import assemble, pipeline, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build

CASES = {
    "column_sums": lambda s: (K.column_sums, "*fp32", "*fp32", "i32", "i32", "i32", 0.5, 256, s),
    "weighted_blocks": lambda s: (K.weighted_blocks, "*fp32", "*fp32", "i32", 1.5, 512, s),
    "advancing_pointers": lambda s: (K.advancing_pointers, "*fp16", "*fp16", "*fp32", "i32", 256, s),
    "tile_rows": lambda s: (K.tile_rows, "*fp32", "*fp32", "i32", "i32", 16, 32, s),
    "softmax_persistent": lambda s: (
        K.softmax_persistent, "*fp32", "*fp32", "i32", "i32", "i32", "i32", 1024, s
    ),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _pipelining_on():
    """cp.async pipelining is opt-in (TILEC_EXPERIMENTAL=cuda-pipelining) until verified on GPUs."""
    with config.override(experimental=frozenset({"cuda-pipelining"})):
        yield


def _build_divisible(fn, *sigs):  # type: ignore[no-untyped-def]
    """Like build, with every integer argument a multiple of 16 (as the runtime specializes
    sizes and strides that are)."""
    import dataclasses
    import inspect

    from support.build import spec
    from tilec.frontend import build_module
    from tilec.ir.argspec import ArgKind

    names = list(inspect.signature(fn).parameters)
    specs = [spec(n, s) for n, s in zip(names, sigs)]
    specs = [
        dataclasses.replace(a, divisible_by_16=True) if a.kind is ArgKind.SCALAR else a
        for a in specs
    ]
    return build_module(fn, specs)


def _compile(case: str, stages: int, arch: str, num_warps: int = 4):  # type: ignore[no-untyped-def]
    fn, *sig = CASES[case](stages)
    module = build(fn.fn, *sig)
    options = CompileOptions(num_warps=num_warps)
    return CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options)


def _assembles(ptx: str, arch: str) -> None:
    ptxas = toolchain.ptxas_path()
    if ptxas:
        result = assemble.with_ptxas(ptx, arch, ptxas)
        assert result.cubin


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("stages", [3, 4])
@pytest.mark.parametrize("case", sorted(CASES))
def test_pipelined_loop_uses_cp_async(case: str, stages: int, arch: str) -> None:
    kernel = _compile(case, stages, arch)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    assert "cp.async" in ptx and "cp.async.commit_group" in ptx
    waits = re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx)
    assert waits == [str(stages - 1)] * len(waits) and waits
    assert "cp.async.wait_all" in ptx  # drained at the loop exit
    assert kernel.metadata.shared >= stages * 4 * 4 * 32  # the stage buffers are counted
    _assembles(ptx, arch)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_one_stage_is_not_pipelined(case: str, arch: str) -> None:
    ptx = _compile(case, 1, arch).asm["ptx"]
    assert isinstance(ptx, str) and "cp.async" not in ptx


def test_no_cp_async_before_sm_80() -> None:
    kernel = _compile("column_sums", 3, "sm_75")
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and "cp.async" not in ptx and "ld.shared" not in ptx
    _assembles(ptx, "sm_75")


@pytest.mark.parametrize("dtype, size", [("fp32", "16"), ("fp16", "8")])
def test_copies_are_as_wide_as_the_vectors(dtype: str, size: str) -> None:
    """Loop-carried pointers (``p += BLOCK``) keep their contiguity, so each thread's 4-element
    vector travels in one copy."""
    module = build(K.advancing_pointers.fn, f"*{dtype}", f"*{dtype}", "*fp32", "i32", 128, 3)
    options = CompileOptions(num_warps=1)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_80"), options)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    sizes = set(re.findall(r"cp\.async\.\w+\.shared\.global \[[^]]+\], \[[^]]+\], (\d+)", ptx))
    assert sizes == {size}


def test_stages_shrink_to_the_budget() -> None:
    """A 16 KiB row per stage: 8 stages would need 128 KiB, more than the budget allows."""
    fn = K.column_sums
    module = build(fn.fn, "*fp32", "*fp32", "i32", "i32", "i32", 0.0, 4096, 8)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_80"), CompileOptions()
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    (wait,) = set(re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx))
    assert int(wait) + 1 == pipeline.BUDGET // (4096 * 4)
    assert kernel.metadata.shared <= pipeline.BUDGET + 1024


@pytest.mark.parametrize(
    "fn, sig, copies",
    [
        # the index load is copied ahead, the gathered load stays a plain load
        (K.gather_rows, ("*fp32", "*i32", "*fp32", "i32", 256, 3), 1),
        # a load under a run-time if is never copied ahead
        (K.guarded_load, ("*fp32", "*fp32", "i32", "i32", 256, 3), 0),
        # loads of memory the loop stores to are never copied ahead
        (K.prefix_through_memory, ("*fp32", "*fp32", "i32", 128, 3), 0),
    ],
)
def test_only_safe_loads_are_copied_ahead(fn, sig, copies: int) -> None:  # type: ignore[no-untyped-def]
    module = build(fn.fn, *sig)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_80"), CompileOptions()
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    loads = [line for line in ptx.splitlines() if "ld.global" in line or "ld.shared" in line]
    if copies:
        assert "cp.async" in ptx and any("ld.global" in line for line in loads)
    else:
        assert "cp.async" not in ptx
    _assembles(ptx, "sm_80")


def test_cpu_backend_ignores_num_stages() -> None:
    import numpy as np

    x = np.random.default_rng(1).standard_normal((5, 200)).astype(np.float32)
    out = np.full(256, np.nan, np.float32)
    import tilec

    kernel = tilec.jit(backend="cpu")(K.column_sums.fn)
    kernel[(1,)](x, out, 5, 200, 200, 0.5, 256, 3)
    np.testing.assert_allclose(out, K.column_sums_ref(x, 200, 0.5, 256), rtol=1e-5)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("stages", [1, 3, 4])
def test_launch_num_stages_pipelines_the_loads_feeding_a_dot(arch: str, stages: int) -> None:
    """A plain ``range`` K-loop takes the launch's num_stages for its tl.dot operands."""
    import cuda_tl_kernels as T

    sig = ("*fp16", "*fp16", "*fp16", "i32", "i32", "i32", "i32", 1, "i32", 1, "i32", 1,
           64, 64, 32, 8)  # fmt: skip
    module = _build_divisible(T.matmul.fn, *sig)
    options = CompileOptions(num_stages=stages)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    waits = set(re.findall(r"cp\.async\.wait_group\s+(\d+);", ptx))
    # dot operands go straight to the dot's shared layout: wait for the stage, then one
    # bar.sync publishes it (and frees the slot the next copies fill), so S-2 stay pending
    assert waits == (set() if stages == 1 else {str(stages - 2)})
    if stages > 1:
        sizes = set(re.findall(r"cp\.async\.\w+\.shared\.global \[[^]]+\], \[[^]]+\], (\d+)", ptx))
        assert sizes == {"16"}
    _assembles(ptx, arch)


def test_launch_num_stages_leaves_loops_without_a_dot_alone() -> None:
    module = build(K.column_sums_plain.fn, "*fp32", "*fp32", "i32", "i32", "i32", 256)
    options = CompileOptions(num_stages=4)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_80"), options)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and "cp.async" not in ptx
