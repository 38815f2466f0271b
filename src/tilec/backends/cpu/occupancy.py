"""What Triton's occupancy arithmetic reads (``n_regs``, ``metadata.shared``, device limits) on a CPU.

A CPU has no register file shared by warps and no shared memory, but host code such as Triton's
fused-softmax tutorial divides by these numbers to size a persistent grid. On the CPU a program
is one thread of work on one core (warpSize 1), so tilec reports figures with a real meaning:
the vector registers a program allocates from, and the stack bytes its tile buffers take.
"""

from __future__ import annotations

import re

from ..target import Target

# Triton's largest num_warps: the per-core register budget lets every setting fit at least once,
# so ``max_num_regs // (n_regs * warpSize * num_warps)`` (programs per core) is never 0.
MAX_NUM_WARPS = 32
# The stack the launcher gives each worker thread (platform/launcher/grid.c, TL_STACK_SIZE):
# the CPU kernels keep their tile buffers there, so it plays the part of shared memory.
PROGRAM_STACK_BYTES = 8 << 20
# The smallest tile working set reported: one cache line (never 0, so host code can divide).
MIN_STACK_BYTES = 64

_ALLOCA = re.compile(r"= alloca (.+?)(?:, align \d+)?$", re.M)
_SCALAR_BYTES = {
    "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "i128": 16, "half": 2, "bfloat": 2,
    "float": 4, "double": 8, "ptr": 8,
}  # fmt: skip


def vector_registers(target: Target) -> int:
    """SIMD registers the code generator allocates from: 32 with AVX-512 and on arm64, else 16
    (x86-64's SSE/AVX register file)."""
    triple = target.triple or ""
    if triple.startswith(("x86_64", "i386", "i686")) or not triple:
        return 32 if "+avx512f" in target.features else 16
    return 32


def max_num_regs(target: Target) -> int:
    """The register budget of one core, in Triton's units (registers × warpSize × warps)."""
    return vector_registers(target) * MAX_NUM_WARPS


def _type_bytes(text: str) -> int | None:
    """Size of an LLVM type written as ``[N x T]``, ``<N x T>`` or a scalar; None if unknown."""
    text = text.strip()
    if text and text[0] in "[<" and text[-1] in "]>":
        count, sep, element = text[1:-1].partition(" x ")
        inner = _type_bytes(element) if sep and count.strip().isdigit() else None
        return None if inner is None else int(count) * inner
    return _SCALAR_BYTES.get(text)


def stack_bytes(llir: str) -> int:
    """Bytes of the ``alloca``s in optimized LLVM IR: the tile buffers a program keeps on its
    stack (an array length given at run time counts as one element)."""
    total = 0
    for match in _ALLOCA.finditer(llir):
        kind = match.group(1).split(",")[0]
        total += _type_bytes(kind) or 8
    return max(total, MIN_STACK_BYTES)
