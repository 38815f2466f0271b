"""On AVX-512 targets kernels may use 512-bit vectors (LLVM's Intel tuning would stop at 256 bits):
the functions carry ``"prefer-vector-width"="512"`` only when the target's features have
AVX-512, so math loops run 16 fp32 lanes there and code for other x86 hosts is unchanged."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends import registry
from tilec.backends.llvm import machine
from tilec.backends.target import CompileOptions, Target
from tilec.language.extra import libdevice
from tilec.runtime import compiler, specialize

TRIPLE = "x86_64-unknown-linux-gnu"
ATTRIBUTE = '"prefer-vector-width"="512"'


@tilec.jit
def pointwise(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.sin(x) * tl.exp(-x * x) + libdevice.tanh(x) - libdevice.erf(x) / 3
    tl.store(out_ptr + offs, y, mask=m)


def _compiled(cpu: str, features: str):
    x = np.zeros(16, np.float32)
    cx = [p.constexpr for p in pointwise.params]
    _, specs = specialize.specialize(pointwise.arg_names, [x, x, 16, 1024], cx)
    target = Target("cpu", cpu, features, TRIPLE)
    return registry.get("cpu").compiler.compile(
        compiler.build_ir(pointwise, specs), target, CompileOptions()
    )


def _lanes(llir: str) -> dict[int, int]:
    return {w: len(re.findall(rf"fmul <{w} x float>", llir)) for w in (8, 16)}


def test_intel_avx512_runs_math_16_lanes_wide() -> None:
    compiled = _compiled("skylake-avx512", "+avx2,+fma,+avx512f,+avx512dq,+avx512vl,+avx512bw")
    llir = compiled.asm["llir"]
    assert ATTRIBUTE in llir
    lanes = _lanes(llir)
    assert lanes[16] > lanes[8], lanes
    assert "zmm" in registry.get("cpu").compiler.assembly(compiled)


@pytest.mark.parametrize(("cpu", "features"), [("znver3", "+avx2,+fma"), ("x86-64", "+sse2")])
def test_no_wider_preference_without_avx512(cpu: str, features: str) -> None:
    compiled = _compiled(cpu, features)
    assert "prefer-vector-width" not in compiled.asm["llir"]
    assert "zmm" not in registry.get("cpu").compiler.assembly(compiled)


def test_attributes_follow_the_features() -> None:
    assert machine.vector_width_attributes("+avx2,+avx512f,+fma") == (ATTRIBUTE,)
    assert machine.vector_width_attributes("+avx2,-avx512f,+fma") == ()
    assert machine.vector_width_attributes("") == ()


def test_host_kernel_matches_numpy() -> None:
    """Whatever the host has, the kernel compiled for it runs and gives numpy's values."""
    x = np.random.default_rng(0).uniform(-4, 4, 5000).astype(np.float32)
    out = np.full_like(x, np.nan)
    pointwise[(5,)](x, out, x.size, BLOCK=1024)
    from math import erf

    xd = x.astype(np.float64)
    want = np.sin(xd) * np.exp(-xd * xd) + np.tanh(xd) - np.vectorize(erf)(xd) / 3
    np.testing.assert_allclose(out, want, rtol=0, atol=2e-6)
