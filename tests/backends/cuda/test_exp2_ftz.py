"""fp32 exp2 flushes subnormal results as Triton's does (libdevice's exp2f under its default
ftz reflection: one ex2.approx.ftz), while exp keeps them (ex2.approx of x * log2 e, as
Triton's exp); offline, the PTX of each, assembled by ptxas where one is installed."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from support.build import build
from tilec.backends.cuda import toolchain
from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.target import CompileOptions, Target


@tilec.jit
def _unary(x_ptr, y_ptr, EXP2: tl.constexpr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.math.exp2(x) if EXP2 else tl.exp(x))


def _ptx(exp2: bool, **options: bool) -> str:
    module = build(_unary.fn, "*fp32", "*fp32", exp2)
    art = CudaCompiler(assembler="none").compile(
        module, Target("cuda", "sm_90"), CompileOptions(**options)
    )
    ptx = art.asm["ptx"]
    assert isinstance(ptx, str)
    return ptx


def test_exp2_is_one_flushing_ex2() -> None:
    ptx = _ptx(True)
    assert re.findall(r"ex2\.approx[.\w]*", ptx) == ["ex2.approx.ftz.f32"]


def test_enable_reflect_ftz_false_keeps_subnormal_exp2_results() -> None:
    # Triton's option: ex2.approx.ftz.f32 is in its PTX exactly when it is set (the default)
    ptx = _ptx(True, enable_reflect_ftz=False)
    assert re.findall(r"ex2\.approx[.\w]*", ptx) == ["ex2.approx.f32"]


def test_the_option_is_a_launch_keyword() -> None:
    x = np.full(128, -127.0, np.float32)
    for ftz in (False, True):
        launched = _unary.warmup(x, x, True, grid=(1,), enable_reflect_ftz=ftz)
        assert launched.metadata.options.enable_reflect_ftz is ftz


def test_exp_keeps_subnormal_results() -> None:
    ptx = _ptx(False)
    assert re.findall(r"ex2\.approx[.\w]*", ptx) == ["ex2.approx.f32"]


@pytest.mark.skipif(not toolchain.ptxas_path(), reason="needs ptxas")
def test_both_assemble() -> None:
    from tilec.backends.cuda import assemble

    for exp2 in (True, False):
        assert assemble.with_ptxas(_ptx(exp2), "sm_90", toolchain.ptxas_path()).cubin
