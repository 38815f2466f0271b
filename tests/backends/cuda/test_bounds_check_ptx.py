"""Bounds-checked kernels (debug mode) lower to PTX that ptxas accepts, offline: tile and
scalar loads and stores, masked and not, atomics (compare-and-swap through the scratch word),
pointers carried by loops and block pointers."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import tilec
import tilec.language as tl
from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.passes import bounds_check

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from support.build import build


@tilec.jit
def masked_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n, other=0.0), mask=offs < n)


@tilec.jit
def scalars(x_ptr, y_ptr, n):
    v = tl.load(x_ptr + n)
    tl.store(y_ptr + tl.program_id(0), v * 2)


@tilec.jit
def atomics(x_ptr, lock_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(x_ptr + offs, 1.0, mask=offs < 100)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.atomic_xchg(lock_ptr, 0)
    tl.atomic_cas(lock_ptr + offs, 0, 1)


@tilec.jit
def carried(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    p = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for _ in range(0, n, BLOCK):
        acc += tl.load(p)
        p += BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@tilec.jit
def block_ptrs(x_ptr, y_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (0, 0), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (M, N), (stride, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))


KERNELS = {
    "masked_copy": (masked_copy, ("*fp32", "*fp32", "i32", 256)),
    "scalars": (scalars, ("*fp32", "*fp32", "i32")),
    "atomics": (atomics, ("*fp32", "*i32", 128)),
    "carried": (carried, ("*fp32", "*fp32", "i32", 128)),
    "block_ptrs": (block_ptrs, ("*fp16", "*fp16", "i32", "i32", "i32", 32, 64)),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_checked_kernel_assembles(name: str, arch: str) -> None:
    fn, sig = KERNELS[name]
    module = build(fn.fn, *sig)
    info = bounds_check.instrument(module)
    assert info is not None and info.sites
    options = CompileOptions(debug=True)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), options)
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    # the record is claimed with one compare-and-swap per check and never traps
    assert re.search(r"atom\.[a-z.]*cas\.b64", ptx)
    assert "trap" not in ptx
    hidden = 2 * len(info.pointers) + 1 + info.scratch
    assert ptx.count(".param .u64") + ptx.count(".param .b64") >= hidden
    if toolchain.ptxas_path():
        result = assemble.with_ptxas(ptx, arch, toolchain.ptxas_path() or "")
        assert result.cubin


def test_unchecked_kernel_has_no_check() -> None:
    """Without debug mode nothing is added: no hidden parameters, no compare-and-swap."""
    module = build(masked_copy.fn, "*fp32", "*fp32", "i32", 256)
    kernel = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_80"), CompileOptions()
    )
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    assert "atom" not in ptx and "_bounds" not in ptx
