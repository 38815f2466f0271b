"""Tutorial-style tile-language kernels, through the real frontend, lower to PTX for sm_80 and
sm_90a and assemble with ptxas (no GPU needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import cuda_tl_kernels as K
import pytest

from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build

SIGNATURES = {
    "add": ("*fp32", "*fp32", "*fp32", "i32", 1024),
    "softmax": ("*fp32", "*fp32", "i32", "i32", "i32", 1024),
    "dropout": ("*fp32", "*fp32", "i32", "fp32", "i32", 1024),
    "layer_norm_bwd_dx": ("*fp32",) * 8 + ("*i32", "i32", "i32", 8, 256),
    "matmul": (
        "*fp16",
        "*fp16",
        "*fp16",
        "i32",
        "i32",
        "i32",
        "i32",
        1,
        "i32",
        1,
        "i32",
        1,
        64,
        64,
        32,
        8,
    ),
    "attention": ("*fp16", "*fp16", "*fp16", "*fp16", "fp32", "i32", 64, 32, 64),
    "argmax_cumsum": ("*fp32", "*i32", "*fp32", 128),
    "debug_print": ("*fp32", 64),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_tl_kernel_assembles(name: str, arch: str) -> None:
    module = build(getattr(K, name).fn, *SIGNATURES[name])
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), CompileOptions())
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and f".target {arch}" in ptx
    if toolchain.ptxas_path():
        result = assemble.with_ptxas(ptx, arch, toolchain.ptxas_path() or "")
        assert result.cubin and result.n_spills == 0


def test_vector_add_uses_128_bit_accesses() -> None:
    module = build(K.add.fn, "*fp32", "*fp32", "*fp32", "i32", 1024)
    specs = module.functions[0].specs
    assert [s.divisible_by_16 for s in specs[:3]] == [True] * 3  # aligned pointers
    ptx = (
        CudaCompiler(assembler="none")
        .compile(module, Target("cuda", "sm_90a"), CompileOptions())
        .asm["ptx"]
    )
    assert isinstance(ptx, str)
    assert "ld.global.b32" in ptx  # n is not known divisible by 16: the mask varies per element
    from tilec.ir.argspec import scalar_arg
    from tilec.ir.types import int32

    module = build(K.add.fn, "*fp32", "*fp32", "*fp32", "i32", 1024)
    func = module.functions[0]
    func.specs = (*func.specs[:3], scalar_arg("n", int32, divisible_by_16=True))
    ptx = (
        CudaCompiler(assembler="none")
        .compile(module, Target("cuda", "sm_90a"), CompileOptions())
        .asm["ptx"]
    )
    assert isinstance(ptx, str) and "ld.global.v4.b32" in ptx and "st.global.v4.b32" in ptx


def test_device_assert_is_recorded() -> None:
    module = build(K.debug_print.fn, "*fp32", 64)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_90a"), CompileOptions()
    )
    assert [a.message for a in kernel.metadata.asserts] == ["negative input"]
    assert "vprintf" in str(kernel.asm["ptx"]) and "__assertfail" in str(kernel.asm["ptx"])
