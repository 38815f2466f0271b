"""A load whose innermost stride is a run-time value (Inductor's column sums with dynamic shapes,
Triton kernels taking strides as arguments): LLVM is not left to version the loop on the stride
being 1, a version that never runs because an argument equal to 1 is specialized as a constant,
while the other version stayed scalar. Where the tile's other axis is the unit-stride one, the
loops run that axis innermost and the loads are plain vector loads, not gathers."""

from __future__ import annotations

import numpy as np
import pytest
from tests.support.build import build

import tilec
import tilec.language as tl
from tilec.backends.cpu.program import build_module
from tilec.backends.llvm import isolation, machine


@tilec.jit
def column_sums(x_ptr, out_ptr, stride, n_rows, BX: tl.constexpr, BR: tl.constexpr):
    cols = tl.program_id(0) * BX + tl.arange(0, BX)[:, None]
    rows = tl.arange(0, BR)[None, :]
    acc = tl.zeros([BX, BR], dtype=tl.float32)
    for start in range(0, n_rows, BR):
        r = start + rows
        x = tl.load(x_ptr + cols + stride * r, mask=r < n_rows, other=0.0)
        acc = tl.where(r < n_rows, acc + x * tl.sigmoid(x), acc)
    tl.store(out_ptr + cols, tl.sum(acc, 1)[:, None])


@pytest.mark.parametrize("isolate", [True, False])
def test_run_time_stride_is_not_versioned(isolate: bool) -> None:
    # LLVM names the check of a symbolic stride against 1 "ident.check" (its loop versioning)
    module = build(column_sums.fn, "*fp32", "*fp32", "i32", "i32", 32, 32)
    triple, cpu = "x86_64-unknown-linux-gnu", "skylake-avx512"
    features = "+avx2,+fma,+avx512f,+avx512vl,+avx512bw,+avx512dq"
    layout = str(machine.target_machine(triple, cpu, features).target_data)
    llmod, _, _ = build_module(module.functions[0], triple, layout, features)
    out = isolation.generate(str(llmod), triple, cpu, features, isolate=isolate)
    assert "ident.check" not in out.llir
    assert "llvm.masked.gather" not in out.llir
    assert "load <16 x float>" in out.llir


def test_run_time_stride_sums() -> None:
    rng = np.random.default_rng()
    x = rng.standard_normal((300, 96)).astype(np.float32)
    out = np.full(96, np.nan, np.float32)
    column_sums[(96 // 32,)](x, out, x.shape[1], x.shape[0], BX=32, BR=32)
    xd = x.astype(np.float64)
    want = (xd / (1 + np.exp(-xd))).sum(0)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
