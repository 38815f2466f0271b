"""What the CUDA backend hands LLVM stays small: compile time (llvmlite printing, LLVM's parse,
optimization and NVPTX emission, then ptxas) grows with it, and pathologies showed as size
first. No timing here: instruction counts and the shapes that made LLVM slow (bench/compile_time.py
measures the time)."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import cuda_tl_kernels as T
import pytest
from test_matmul_k_loop import BIG, compile_matmul

from tilec.backends.cuda import compiler as cuda_compiler
from tilec.backends.cuda import nvptx
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.errors import LoweringError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build

_INSTRUCTION = re.compile(r"^  (?![;}])", re.M)


def _instructions(llir: str) -> int:
    return len(_INSTRUCTION.findall(llir))


def _lowered(compile_kernel):  # type: ignore[no-untyped-def]
    """(unoptimized LLVM IR, compiled kernel) of what ``compile_kernel()`` compiles."""
    seen: list[str] = []
    real = cuda_compiler.lower

    def spy(func, arch, options, **kw):  # type: ignore[no-untyped-def]
        text, lowering = real(func, arch, options, **kw)
        seen.append(text)
        return text, lowering

    cuda_compiler.lower = spy
    try:
        kernel = compile_kernel()
    finally:
        cuda_compiler.lower = real
    (llir,) = seen
    return llir, kernel


@functools.cache
def _matmul(arch: str):  # type: ignore[no-untyped-def]
    block, warps, stages = BIG
    return _lowered(lambda: compile_matmul.__wrapped__(block, warps, stages, arch))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_tutorial_matmul_ir_stays_small(arch: str) -> None:
    """Triton's tutorial configuration (128x256x64, 8 warps, 3 stages): 8062 instructions
    before registers were addressed from per-thread bases, dead ones dropped and thread-only
    address math emitted once (2777 now)."""
    llir, kernel = _matmul(arch)
    assert _instructions(llir) < 3100
    optimized = kernel.asm["llir"]
    assert isinstance(optimized, str) and _instructions(optimized) < 2500
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    instructions = [ln for ln in ptx.splitlines() if ln.startswith("\t") and ln.endswith(";")]
    assert len(instructions) < 1500


def test_conversion_addresses_shared_memory_from_thread_bases() -> None:
    """The epilogue's layout conversion: shared-memory GEPs take a constant from a per-thread
    base (a GEP with a computed index per register made NVPTX's straight-line strength
    reduction compare them pairwise)."""
    llir, _ = _matmul("sm_80")
    epilogue = llir[llir.index("for.exit:") :]
    shared = re.findall(r"getelementptr \w+, ptr addrspace\(3\) (%\S+), i32 (\S+)", epilogue)
    variable = [g for g in shared if g[1].startswith("%")]
    assert len(shared) >= 64 and len(variable) <= 2
    # the 16-byte global stores take the words of the conversion's vector loads as they are
    # (rules.memory._whole_vectors), not elements shuffled into a new <8 x half>
    assert "insertelement <8 x half>" not in epilogue


def test_no_dead_instructions_reach_llvm() -> None:
    """Every value the printed IR defines is used (llvm/prune.py)."""
    llir, _ = _matmul("sm_80")
    body = llir[llir.index("{") :]
    defined = re.findall(r"^  (%\"?[\w.]+\"?) = ", body, re.M)
    counts: dict[str, int] = {}
    for name in re.findall(r"%\"?[\w.]+\"?", body):
        counts[name] = counts.get(name, 0) + 1
    assert [d for d in defined if counts[d] < 2] == []


def test_attention_ir_stays_small() -> None:
    """Flash-attention forward (64x32 tiles, d64, 4 warps): grouped exact division checks each
    group with a min and a max per divisor, not a chain of range tests per quotient."""
    module = build(T.attention.fn, "*fp16", "*fp16", "*fp16", "*fp16", "fp32", "i32", 64, 32, 64)
    llir, kernel = _lowered(
        lambda: CudaCompiler(assembler="none").compile(
            module, Target("cuda", "sm_90"), CompileOptions(num_warps=4)
        )
    )
    assert _instructions(llir) < 2800
    assert llir.count("rcp.approx") <= 4  # one per divisor and group, not one per quotient
    assert isinstance(kernel.asm["ptx"], str)


def test_check_callees_reads_one_line_per_call() -> None:
    """llvm.sin/cos/tanh need afn; the check looks at the call's own line (a pattern that ran
    on to the next '@' was quadratic in kernels full of inline-asm calls)."""
    asm_calls = '  %a = call i32 asm "mov.b32 $0, 1;", "=r"()\n' * 50
    decl = "declare float @llvm.sin.f32(float)\n"
    good = decl + asm_calls + "  %y = call afn float @llvm.sin.f32(float %x)\n"
    nvptx.check_callees(good)
    bad = decl + "  %y = call float @llvm.sin.f32(float %x)\n" + asm_calls.replace("asm", "afn asm")
    with pytest.raises(LoweringError, match="afn"):
        nvptx.check_callees(bad)
