"""CpuCompiler: tile IR module → LLVM IR → optimized for the target CPU → object file."""

from __future__ import annotations

from ... import config
from ...errors import LoweringError
from ...ir.ops import FuncOp, ModuleOp
from ...ir.printer import print_ir
from ...ir.verify import verify
from ..artifacts import CompiledKernel, KernelMetadata, Stage
from ..llvm import isolation, machine
from ..target import CompileOptions, Target
from .nest import self_referencing_loop_ids
from .program import build_module


class CpuCompiler:
    """Compiles for the host (or any triple LLVM knows: objects for other OSes/CPUs emit too)."""

    def stages(self) -> tuple[Stage, ...]:
        return (Stage.TIR, Stage.LLIR, Stage.ASM, Stage.OBJ)

    def compile(
        self,
        module: ModuleOp,
        target: Target,
        options: CompileOptions,
        emit_asm: bool | None = None,
    ) -> CompiledKernel:
        """Lower, then optimize (O3) and emit the object in the isolated code generator (an
        LLVM abort cannot end this process). Assembly doubles code generation time, so it is
        emitted only with ``emit_asm``, ``options.debug`` or a dump directory; :meth:`assembly`
        makes it later from the kept LLVM IR."""
        funcs = module.functions
        if len(funcs) != 1:
            raise LoweringError(f"a kernel module must hold exactly one function, not {len(funcs)}")
        func: FuncOp = funcs[0]
        isolation.prestart()
        verify(module)
        host = machine.host_cpu()
        triple = target.triple or host.triple
        cpu = target.arch or "generic"
        tm = machine.target_machine(triple, cpu, target.features)
        llmod, symbol, asserts = build_module(
            func, triple, str(tm.target_data), target.features, options.num_warps
        )
        if emit_asm is None:
            emit_asm = options.debug or config.get().dump_dir is not None
        out = isolation.generate(
            self_referencing_loop_ids(str(llmod)), triple, cpu, target.features, 3, emit_asm
        )
        asm: dict[str, str | bytes] = {
            Stage.TIR.value: print_ir(module),
            Stage.LLIR.value: out.llir,
        }
        if out.asm is not None:
            asm[Stage.ASM.value] = out.asm
        asm[Stage.OBJ.value] = out.obj
        meta = KernelMetadata(
            name=func.sym_name,
            symbol=symbol,
            target=target,
            options=options,
            params=func.specs,
            asserts=tuple(asserts),
        )
        return CompiledKernel(meta, asm)

    def assembly(self, compiled: CompiledKernel) -> str:
        """The kernel's assembly, from its optimized LLVM IR (for kernels compiled without)."""
        text = compiled.asm.get(Stage.ASM.value)
        if isinstance(text, str):
            return text
        target = compiled.metadata.target
        triple = target.triple or machine.host_cpu().triple
        out = isolation.generate(
            str(compiled.asm[Stage.LLIR.value]),
            triple,
            target.arch or "generic",
            target.features,
            3,
            emit_asm=True,
            run_passes=False,
        )
        assert out.asm is not None
        return out.asm
