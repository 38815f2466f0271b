"""Tuple kernel arguments on the CUDA side, offline: the kernel's PTX takes one parameter per
run-time leaf (constexpr, None and equal-to-1 leaves folded), ptxas accepts it where present,
and the launch hands the CUDA launcher the leaves' values flat, in order."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import tilec
import tilec.language as tl
from tilec.backends import launcher
from tilec.backends.artifacts import CompiledKernel, KernelMetadata
from tilec.backends.cuda import assemble, toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.cuda.launch import CudaLauncher
from tilec.backends.target import CompileOptions, Target
from tilec.frontend import build_module
from tilec.ir import types as ir
from tilec.ir.argspec import (
    ArgKind,
    ArgSpec,
    constexpr_arg,
    descriptor_arg,
    leaves,
    pointer_arg,
    scalar_arg,
    tuple_arg,
)
from tilec.runtime.kernel import LaunchedKernel
from tilec.runtime.tuple_args import TupleKernel


@tilec.jit
def scale_pairs(dst, pairs, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in tl.static_range(len(pairs)):
        acc += tl.load(pairs[i][0] + offs) * pairs[i][1]
    tl.store(dst + offs, acc)


def _specs():
    one = ArgSpec("pairs[1][1]", ArgKind.SCALAR, ir.int32, equals_one=True)
    return (
        pointer_arg("dst", ir.float32),
        tuple_arg("pairs", tuple, [
            tuple_arg("pairs[0]", tuple, [
                pointer_arg("pairs[0][0]", ir.float32), scalar_arg("pairs[0][1]", ir.float32)
            ]),
            tuple_arg("pairs[1]", tuple, [pointer_arg("pairs[1][0]", ir.float32), one]),
        ]),
        constexpr_arg("BLOCK", 128),
    )  # fmt: skip


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_takes_the_runtime_leaves(arch):
    module = build_module(scale_pairs.fn, _specs())
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), CompileOptions())
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    # dst, pairs[0][0], pairs[0][1], pairs[1][0]: the 1 and BLOCK are folded
    assert [p.name for p in kernel.metadata.params] == [
        "dst", "pairs[0][0]", "pairs[0][1]", "pairs[1][0]"
    ]  # fmt: skip
    assert ptx.count(".param .u64") + ptx.count(".param .b64") == 3
    assert ptx.count(".param .f32") + ptx.count(".param .b32") == 1
    if toolchain.ptxas_path():
        assert assemble.with_ptxas(ptx, arch, toolchain.ptxas_path() or "").cubin


@tilec.jit
def desc_pair(dst, payload, BM: tl.constexpr, BN: tl.constexpr):
    block = payload[0].load([payload[1] * BM, 0])
    tl.store(dst + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], block)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_descriptor_inside_a_tuple(arch):
    """A descriptor in a tuple takes its base, shape and outer stride as parameters."""
    i64 = [ArgSpec(f"payload[0].{n}", ArgKind.SCALAR, ir.int64) for n in ("s0", "s1", "t0")]
    desc = descriptor_arg("payload[0]", (16, 32), "zero", [
        pointer_arg("payload[0].base", ir.float16), *i64
    ])  # fmt: skip
    specs = (
        pointer_arg("dst", ir.float16),
        tuple_arg("payload", tuple, [desc, scalar_arg("payload[1]", ir.int32)]),
        constexpr_arg("BM", 16),
        constexpr_arg("BN", 32),
    )
    module = build_module(desc_pair.fn, specs)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), CompileOptions())
    assert [p.name for p in kernel.metadata.params] == [
        "dst", "payload[0].base", "payload[0].s0", "payload[0].s1", "payload[0].t0", "payload[1]"
    ]  # fmt: skip
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str)
    if toolchain.ptxas_path():
        assert assemble.with_ptxas(ptx, arch, toolchain.ptxas_path() or "").cubin


def test_launch_passes_the_leaves_flat(monkeypatch):
    calls = []
    monkeypatch.setattr(launcher, "cuda_launcher", lambda: lambda *a: calls.append(a))
    specs = _specs()
    flat = leaves(specs)
    runtime = tuple(s for s in flat if s.is_runtime)
    meta = KernelMetadata("k", "k", Target("cuda", "sm_90a"), CompileOptions(), runtime)
    compiled = CompiledKernel(meta, {})
    loaded = SimpleNamespace(handle=0xABC, function=None)
    inner = LaunchedKernel(compiled, loaded, CudaLauncher(compiled, loaded, flat), flat)
    kernel = TupleKernel(inner, specs)
    # a tuple's launch value is its leaves' values, flat (what specialize.describe returns)
    kernel.launch((2,), 0x1000, (0x2000, 2.5, 0x3000, 1), 128)
    ((function, grid, _block, _shared, _stream, codes, values),) = calls
    assert (function, grid) == (0xABC, (2, 1, 1))
    assert codes == b"PPfP" and values == (0x1000, 0x2000, 2.5, 0x3000)
