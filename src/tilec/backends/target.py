"""What a kernel is compiled for (Target) and how (CompileOptions): both part of the cache key."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import NoReturn

from ..errors import CompileOptionError


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
    # CUDA: fp32 exp2 flushes results below 2**-126 to zero (ex2.approx.ftz), as Triton's
    # default; False keeps them subnormal
    enable_reflect_ftz: bool = True
    debug: bool = False  # keep device_assert checks and bounds checks; verify IR after passes
    extra: tuple[tuple[str, object], ...] = field(default=())  # other launch kwargs, sorted

    def __post_init__(self) -> None:
        for name, low, high in _INT_RANGES:
            value = getattr(self, name)
            if value is None and name == "maxnreg":
                continue
            value = _integer(name, value)
            if not low <= value <= high:
                _fail(f"{name} must be from {low} to {high}, got {value}")
            object.__setattr__(self, name, value)  # numpy integers become int (cache keys)
        if self.num_warps & (self.num_warps - 1):
            _fail(f"num_warps must be a power of 2, got {self.num_warps}")
        for name in ("enable_fp_fusion", "enable_reflect_ftz", "debug"):
            value = getattr(self, name)
            boolean = isinstance(value, numbers.Integral) or type(value).__name__ in (
                "bool",
                "bool_",
            )
            if not boolean or value not in (0, 1):  # numpy bools
                _fail(f"{name} must be True or False, got {value!r}")
            object.__setattr__(self, name, bool(value))


# no GPU block holds more than 1024 threads; a backend may allow fewer warps
# (registry.Entry.max_num_warps: CUDA's 32), the CPU ignores num_warps. PTX's .maxnreg is at
# most 255
_INT_RANGES = (
    ("num_warps", 1, 1024),
    ("num_stages", 0, 64),
    ("num_ctas", 1, 16),
    ("maxnreg", 1, 255),
)


def _integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        _fail(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)  # type: ignore[call-overload]


def _fail(message: str) -> NoReturn:
    raise CompileOptionError(message)
