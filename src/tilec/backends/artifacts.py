"""Compilation artifacts: the stages a kernel passes through and the compiled kernel itself.

A CompiledKernel is plain data (picklable, cacheable on disk): text or bytes per stage plus
KernelMetadata. Loading it for execution is the driver's job.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..ir.argspec import ArgSpec
from ..ir.bounds import BoundsInfo
from .target import CompileOptions, Target


class Stage(enum.Enum):
    TIR = "tir"  # tile IR text after the pass pipeline
    LLIR = "llir"  # LLVM IR text (optimized)
    ASM = "asm"  # CPU assembly text
    OBJ = "obj"  # CPU object file bytes
    PTX = "ptx"  # PTX text
    CUBIN = "cubin"  # CUDA binary bytes


@dataclass(frozen=True)
class AssertInfo:
    """A device_assert site, reported when it fails at run time."""

    message: str
    location: str  # file:line:col


@dataclass(frozen=True)
class KernelMetadata:
    name: str  # the kernel's function name
    symbol: str  # the entry symbol in the object / cubin
    target: Target
    options: CompileOptions
    params: tuple[ArgSpec, ...]  # runtime parameters only, in launch order
    shared: int = 0  # bytes of shared memory the launch must pass (dynamic, as in Triton)
    # threads of one program (num_warps times the target's warp size: the launch's block);
    # 0 where a program is one thread (the CPU)
    threads: int = 0
    n_regs: int = 0
    n_spills: int = 0
    asserts: tuple[AssertInfo, ...] = ()
    writes: tuple[str, ...] = ()  # pointer parameters stores/atomics may write (set by the runtime)
    bounds: BoundsInfo | None = None  # debug mode's checked accesses and hidden parameters


@dataclass
class CompiledKernel:
    """Every stage's artifact (``asm["ptx"]``, ``asm["llir"]``...) plus metadata."""

    metadata: KernelMetadata
    asm: dict[str, str | bytes] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def n_regs(self) -> int:
        return self.metadata.n_regs

    @property
    def n_spills(self) -> int:
        return self.metadata.n_spills

    @property
    def shared(self) -> int:
        return self.metadata.shared
