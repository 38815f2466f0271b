"""Nothing the CUDA backend is asked to compile can abort the process: unvetted intrinsics and
unknown ops become TilecErrors before LLVM runs."""

from __future__ import annotations

import pytest
from cuda_ir_dsl import KernelBuilder

from tilec.backends.cuda import nvptx
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target
from tilec.errors import LoweringError, UnsupportedFeature
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg
from tilec.ir.core import Op


def test_unvetted_intrinsics_are_refused() -> None:
    for name in (
        "llvm.exp.f32",
        "llvm.log2.f32",
        "llvm.exp2.f64",
        "llvm.nvvm.stmatrix.sync.aligned.m8n8.x4.b16.p3",
    ):
        with pytest.raises(LoweringError, match="unvetted"):
            nvptx.check_callees(f"declare float @{name}(float)\n")


def test_sin_without_afn_is_refused() -> None:
    text = "declare float @llvm.sin.f32(float)\ndefine void @k(float %x) {\n  %y = call float @llvm.sin.f32(float %x)\n  ret void\n}\n"
    with pytest.raises(LoweringError, match="afn"):
        nvptx.check_callees(text)
    nvptx.check_callees(text.replace("call float", "call afn float"))


def test_vetted_intrinsics_pass() -> None:
    nvptx.check_callees(
        "declare float @llvm.nvvm.ex2.approx.f(float)\ndeclare i32 @vprintf(ptr, ptr)\n"
    )


class Mystery(Op):
    name = "mystery"


def test_an_op_without_a_rule_is_a_clear_error() -> None:
    k = KernelBuilder("k", [pointer_arg("x", T.float32)])
    k.b.insert(Mystery([], []))
    module = k.finish()
    with pytest.raises(UnsupportedFeature, match="cannot lower 'mystery'"):
        CudaCompiler(assembler="none").compile(module, Target("cuda", "sm_90a"), CompileOptions())


def test_fp64_only_libdevice_gaps_are_clear_errors() -> None:
    k = KernelBuilder("k", [pointer_arg("x", T.float64)])
    x = k.load(k.add(k.arg["x"], k.arange(32)))
    k.store(k.add(k.arg["x"], k.arange(32)), k.math("fast_expf", x))
    with pytest.raises(UnsupportedFeature, match="fp32 only"):
        CudaCompiler(assembler="none").compile(
            k.finish(), Target("cuda", "sm_80"), CompileOptions()
        )
