"""CudaLauncher hands the launcher the right function, grid, block, shared memory, stream and
runtime values (checked with a recording launcher, so no GPU is needed)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tilec.backends import launcher
from tilec.backends.artifacts import CompiledKernel, KernelMetadata
from tilec.backends.cuda.launch import CudaLauncher
from tilec.backends.target import CompileOptions, Target
from tilec.errors import UsageError
from tilec.ir import types as ir
from tilec.ir.argspec import ArgKind, ArgSpec, constexpr_arg, pointer_arg, scalar_arg


@pytest.fixture
def recorded(monkeypatch):
    calls = []
    monkeypatch.setattr(launcher, "cuda_launcher", lambda: lambda *a: calls.append(a))
    return calls


def _kernel(specs):
    runtime = tuple(s for s in specs if s.is_runtime)
    meta = KernelMetadata("k", "k", Target("cuda", "sm_90a"), CompileOptions(num_warps=8),
                          runtime, shared=2048, threads=256)  # fmt: skip
    loaded = SimpleNamespace(handle=0xABC, function=None)
    return CudaLauncher(CompiledKernel(meta, {}), loaded, specs)


def test_launch_passes_runtime_values_only(recorded):
    specs = (
        pointer_arg("x", ir.float32),
        scalar_arg("n", ir.int32),
        ArgSpec("one", ArgKind.SCALAR, ir.int32, equals_one=True),
        constexpr_arg("BLOCK", 128),
        scalar_arg("a", ir.float32),
    )
    k = _kernel(specs)
    k.launch((3, 2), 0x1000, 77, 1, 128, 2.5)
    ((function, grid, block, shared, stream, codes, values),) = recorded
    assert (function, grid, block, shared) == (0xABC, (3, 2, 1), (256, 1, 1), 2048)
    assert isinstance(stream, int)
    assert codes == b"Pif" and values == (0x1000, 77, 2.5)


def test_empty_and_bad_grids(recorded):
    k = _kernel((pointer_arg("x", ir.float32),))
    k.launch((0,), 0x1000)
    assert recorded == []
    with pytest.raises(UsageError, match="grid"):
        k.launch((-1,), 0x1000)
