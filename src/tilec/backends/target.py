"""What a kernel is compiled for (Target) and how (CompileOptions): both part of the cache key."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    """A backend kind and the exact machine it generates code for.

    cpu:  arch = LLVM host CPU name (e.g. ``znver4``), features = LLVM feature string,
          triple = the host (or a cross) target triple.
    cuda: arch = ``sm_90a`` / ``sm_80`` ..., ptx_version = PTX ISA as an int (80 = 8.0).
    """

    kind: str
    arch: str
    features: str = ""
    triple: str = ""
    ptx_version: int | None = None

    def __str__(self) -> str:
        extra = f", ptx {self.ptx_version / 10:.1f}" if self.ptx_version else ""
        return f"{self.kind}:{self.arch}{extra}"


@dataclass(frozen=True)
class CompileOptions:
    """Triton's launch/compile options (``num_warps`` etc.), accepted on every backend."""

    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None
    enable_fp_fusion: bool = True
    debug: bool = False  # keep device_assert checks and bounds checks; verify IR after passes
    extra: tuple[tuple[str, object], ...] = field(default=())  # other launch kwargs, sorted

    def __post_init__(self) -> None:
        if self.num_warps < 1 or self.num_warps & (self.num_warps - 1):
            from ..errors import UsageError

            raise UsageError(f"num_warps must be a power of 2, got {self.num_warps}")
