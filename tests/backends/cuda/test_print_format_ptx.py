"""device_print's lines on CUDA are Triton's, as on the CPU (offline, from the kernel's LLVM
IR): ``pid (x, y, z) idx (i)<prefix><value>`` with each index padded to its dimension's width,
``idx ()`` for a scalar, ``(operand k)`` when several values print, and the prefix as the
frontend spaced it (no space added here)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tilec.language as tl
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build


def prints(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x", x)
    print("", tl.program_id(0), x)


def test_print_lines():
    module = build(prints, "*i32", 128)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_80"), CompileOptions()
    )
    llir = kernel.asm["llir"]
    assert isinstance(llir, str)
    formats = set(re.findall(r'c"(pid[^"]*)\\0A\\00"', llir))
    assert formats == {
        "pid (%u, %u, %u) idx (%3u) x: %i",
        "pid (%u, %u, %u) idx (): (operand 0) %i",
        "pid (%u, %u, %u) idx (%3u): (operand 1) %i",
    }
