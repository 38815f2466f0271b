"""Every conformance kernel lowers to PTX for sm_80 and sm_90a and assembles (no GPU needed)."""

from __future__ import annotations

import pytest
from cuda_ir_kernels import all_cases

from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target

CASES = {c.name: c for c in all_cases()}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_compiles_and_assembles(name: str, arch: str) -> None:
    case = CASES[name]
    kernel = CudaCompiler(assembler="none").compile(
        case.build(), Target("cuda", arch), CompileOptions(num_warps=case.num_warps)
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and f".target {arch}" in ptx and f".entry {kernel.name}" in ptx
    if toolchain.ptxas_path():
        result = assemble.with_ptxas(ptx, arch, toolchain.ptxas_path() or "")
        assert result.cubin and result.cubin[:4] == b"\x7fELF"
        assert result.n_spills == 0


def test_nvjitlink_and_ptxas_both_assemble() -> None:
    if not (toolchain.nvjitlink_available() and toolchain.ptxas_path()):
        pytest.skip("needs both nvJitLink and ptxas")
    case = CASES["softmax_781"]
    ptx = (
        CudaCompiler(assembler="none")
        .compile(case.build(), Target("cuda", "sm_90a"), CompileOptions())
        .asm["ptx"]
    )
    assert isinstance(ptx, str)
    a = assemble.with_nvjitlink(ptx, "sm_90a")
    b = assemble.with_ptxas(ptx, "sm_90a", toolchain.ptxas_path() or "")
    assert a.cubin and b.cubin and a.n_regs > 0 and b.n_regs > 0 and a.n_spills == b.n_spills == 0
