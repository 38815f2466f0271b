"""LLVM initialization, the host CPU, and target machines.

LLVM is initialized once, on first use (never at import). Optimization and object emission run
in the isolated code generator (isolation.py), where an LLVM abort cannot end this process.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import llvmlite.binding as llvm

from ...errors import LoweringError
from . import codegen_worker


@functools.cache
def initialize() -> None:
    """Register every target LLVM was built with (native first, so the host JIT works)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    codegen_worker.set_options(llvm)


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


def vector_width_attributes(features: str) -> tuple[str, ...]:
    """Function attributes that let kernels for an x86 target with AVX-512 use 512-bit vectors.

    LLVM's tuning for Intel's AVX-512 CPUs (and x86-64-v4) prefers 256-bit vectors, so math-heavy
    loops ran 8 lanes wide where Inductor's C++ code runs 16 (in a trial, Inductor's pointwise
    graph went from 1.67x to 1.02x of C++); AMD's AVX-512 CPUs already prefer 512 bits. Loops
    that only stream memory still ask for 256 bits themselves (cpu/rules/memory.py)."""
    if "+avx512f" not in features.split(","):
        return ()
    return ('"prefer-vector-width"="512"',)
