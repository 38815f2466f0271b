"""The CUDA compiler: tile IR module → LLVM NVPTX IR → PTX → cubin, as a CompiledKernel.

``compile`` never aborts the process: callees are vetted before LLVM runs (nvptx.check_callees)
and assembler failures raise LoweringError with the tool's log.
"""

from __future__ import annotations

import re
from typing import Any

from llvmlite import ir

from ... import config
from ...errors import LoweringError, UnsupportedFeature
from ...ir.ops import FuncOp, ModuleOp
from ...ir.printer import print_ir
from ..artifacts import CompiledKernel, KernelMetadata, Stage
from ..llvm.prune import dismantle, prune
from ..target import CompileOptions, Target
from . import assemble, nvptx, ptx_version
from .lowering import Lowering
from .rules import RULES
from .target_info import NvptxTarget


def kernel_of(module: ModuleOp) -> FuncOp:
    funcs = module.functions
    if len(funcs) != 1:
        raise LoweringError(f"expected one kernel in the module, found {len(funcs)}")
    return funcs[0]


# ptxas's report that it serialized a kernel's wgmma instructions
_SERIALIZED = "(C7514)"


def lower(
    func: FuncOp, arch: str, options: CompileOptions, defer_wgmma: bool = True
) -> tuple[str, Lowering]:
    """The kernel as LLVM IR text (unoptimized) and the lowering state (asserts, shared memory).
    ``defer_wgmma``: K loops may keep a wgmma group in flight (wgmma_groups.deferred)."""
    # loads feeding tensor-core dots are pipelined by default (copied into the dot's shared
    # layout); pipelining other loads stays opt-in until it passes its GPU tests
    # (misaligned-address faults were seen)
    private = "cuda-pipelining" in config.get().experimental
    module, lowering = _lower(func, arch, options, options.num_stages, private, defer_wgmma)
    stages: int | None = options.num_stages
    while lowering is None:  # the stage buffers left too little shared memory: fewer stages
        stages = stages - 1 if stages is not None and stages > 2 else None
        module, lowering = _lower(func, arch, options, stages, private, defer_wgmma)
    for fn in module.functions:
        prune(fn)  # dead registers (llvm/prune.py): less to print and to parse
    text = str(module)
    dismantle(module)  # freed now, not by a later full collection
    threads = options.num_warps * lowering.target.warp_size
    attrs = f' "nvvm.maxntid"="{threads}"'
    if options.maxnreg:
        attrs += f' "nvvm.maxnreg"="{options.maxnreg}"'
    text, n = re.subn(
        r'^(define ptx_kernel void @"?[\w.$]+"?\(.*\))',
        lambda m: m.group(1) + attrs,
        text,
        count=1,
        flags=re.M,
    )
    if n != 1:
        raise LoweringError(
            "could not find the kernel definition in the generated LLVM IR", ir=text
        )
    return text, lowering


def _lower(
    func: FuncOp,
    arch: str,
    options: CompileOptions,
    num_stages: int | None,
    private: bool,
    defer_wgmma: bool,
) -> tuple[ir.Module, Lowering | None]:
    module = ir.Module(name=func.sym_name)
    module.triple = nvptx.TRIPLE
    lowering = Lowering(
        module,
        func,
        options.num_warps,
        _arch_number(arch),
        RULES,
        num_stages,
        private,
        wgmma=_wgmma(arch),
        defer_wgmma=defer_wgmma,
        target=NvptxTarget(_arch_number(arch), flush_exp2=options.enable_reflect_ftz),
    )
    try:
        lowering.run()
    except UnsupportedFeature:
        if num_stages is None or not lowering.reserved:
            raise
        return module, None
    return module, lowering


def _wgmma(arch: str) -> bool:
    """Whether dots may run on wgmma: only sm_90a has it (Triton's DISABLE_MMA_V3 turns it off,
    as in Triton)."""
    return arch == "sm_90a" and not config.get().disable_mma_v3


def _arch_number(arch: str) -> int:
    digits = re.sub(r"\D", "", arch)
    return int(digits) if digits else 0


class CudaCompiler:
    """Implements the backend Compiler protocol for NVIDIA GPUs."""

    def __init__(self, assembler: str = "auto") -> None:
        self.assembler = assembler  # "auto", "nvjitlink", "ptxas" or "none" (driver JIT)

    def stages(self) -> tuple[Stage, ...]:
        return (Stage.TIR, Stage.LLIR, Stage.PTX, Stage.CUBIN)

    def compile(self, module: ModuleOp, target: Target, options: CompileOptions) -> CompiledKernel:
        func = kernel_of(module)
        arch = target.arch
        version = target.ptx_version or ptx_version.choose(arch)
        ptx_version.choose(arch, requested=version)
        lowering, optimized, ptx, result = self._build(func, arch, version, options, True)
        if lowering.wgmma_deferred and _SERIALIZED in result.log:
            # ptxas ran the wgmmas of a loop that keeps a group in flight one after another
            # (it saw a read of their registers it could not order): waiting for each group
            # in its own iteration is faster then
            lowering, optimized, ptx, result = self._build(func, arch, version, options, False)
        asm: dict[str, str | bytes] = {"tir": print_ir(module), "llir": optimized, "ptx": ptx}
        if result.cubin is not None:
            asm["cubin"] = result.cubin
        meta = KernelMetadata(
            name=func.sym_name,
            symbol=func.sym_name,
            target=target,
            options=options,
            params=func.specs,
            shared=lowering.shared_bytes,
            threads=options.num_warps * lowering.target.warp_size,
            n_regs=result.n_regs,
            n_spills=result.n_spills,
            asserts=tuple(lowering.asserts),
        )
        return CompiledKernel(meta, asm)

    def _build(
        self, func: FuncOp, arch: str, version: int, options: CompileOptions, defer: bool
    ) -> tuple[Lowering, str, str, assemble.Assembled]:
        """Lowering, optimized LLVM IR, PTX and the assembled cubin of ``func``."""
        llir, lowering = lower(func, arch, options, defer_wgmma=defer)
        libs: Any = dict(options.extra).get("extern_libs", ())  # Triton's extern_libs option
        libdevice = dict(libs).get("libdevice")
        optimized, ptx = nvptx.to_ptx(llir, arch, version, func.sym_name, libdevice)
        result = (
            assemble.assemble(ptx, arch, self.assembler)
            if self.assembler != "none"
            else assemble.Assembled(None, 0, 0, "", "none")
        )
        return lowering, optimized, ptx, result
