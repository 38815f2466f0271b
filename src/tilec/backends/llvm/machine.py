"""LLVM initialization, target machines, optimization (new pass manager) and object emission.

LLVM is initialized once, on first use (never at import). ``parse_and_verify`` turns a module
that LLVM rejects into a LoweringError before any pass or code generator can abort the process.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir

from ...errors import LoweringError

_lock = threading.Lock()


@functools.cache
def initialize() -> None:
    """Register every target LLVM was built with (native first, so the host JIT works)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@dataclass(frozen=True)
class HostCPU:
    triple: str
    name: str
    features: str


@functools.cache
def host_cpu() -> HostCPU:
    """The process's triple, LLVM CPU name and feature string (what the JIT compiles for)."""
    initialize()
    try:
        features = llvm.get_host_cpu_features().flatten()
    except RuntimeError:  # some hosts (e.g. under emulation) report no features
        features = ""
    return HostCPU(llvm.get_process_triple(), llvm.get_host_cpu_name(), features)


@functools.cache
def target_machine(triple: str, cpu: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    """A shared position-independent target machine for compiling (never give it to a JIT)."""
    return new_target_machine(triple, cpu, features, opt)


def new_target_machine(triple: str, cpu: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    """A fresh target machine; an execution engine takes ownership of the one it is given."""
    initialize()
    try:
        target = llvm.Target.from_triple(triple)
    except RuntimeError as exc:
        raise LoweringError(f"LLVM has no target for triple {triple!r}: {exc}") from exc
    return target.create_target_machine(
        cpu=cpu, features=features, opt=opt, reloc="pic", codemodel="small"
    )


def parse_and_verify(
    module: ir.Module,
    tm: llvm.TargetMachine,
    triple: str,
    fix_text: Callable[[str], str] | None = None,
) -> llvm.ModuleRef:
    """Parse llvmlite.ir text (after ``fix_text``) and run LLVM's verifier; errors become
    LoweringErrors."""
    text = str(module)
    if fix_text is not None:
        text = fix_text(text)
    try:
        ref = llvm.parse_assembly(text)
        ref.triple = triple
        ref.data_layout = str(tm.target_data)
        ref.verify()
    except RuntimeError as exc:
        raise LoweringError(f"LLVM rejected the generated IR: {exc}", ir=text) from exc
    return ref


def parse_llvm_ir(text: str, tm: llvm.TargetMachine, triple: str) -> llvm.ModuleRef:
    """Parse LLVM IR text (e.g. a kept LLIR stage) for ``tm``; errors become LoweringErrors."""
    try:
        ref = llvm.parse_assembly(text)
        ref.triple = triple
        ref.data_layout = str(tm.target_data)
        ref.verify()
    except RuntimeError as exc:
        raise LoweringError(f"LLVM rejected the IR: {exc}", ir=text) from exc
    return ref


def optimize(ref: llvm.ModuleRef, tm: llvm.TargetMachine, level: int = 3) -> None:
    """Run the O``level`` pipeline of the new pass manager (vectorizers on)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=level)
    pto.loop_vectorization = level >= 2
    pto.slp_vectorization = level >= 2
    pb = llvm.create_pass_builder(tm, pto)
    with _lock:  # pass builders share LLVM's global option state
        pb.getModulePassManager().run(ref, pb)


def emit_object(ref: llvm.ModuleRef, tm: llvm.TargetMachine) -> bytes:
    with _lock:  # the cached target machine is shared by every compiling thread
        return bytes(tm.emit_object(ref))


def emit_assembly(ref: llvm.ModuleRef, tm: llvm.TargetMachine) -> str:
    with _lock:
        return str(tm.emit_assembly(ref))
