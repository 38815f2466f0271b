"""Every built-in backend satisfies the protocol of backends/base.py, its driver answers for
the name and memory the registry gives it, and its launcher is a Launcher."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tilec.backends import registry
from tilec.backends.base import CompiledKernel, Compiler, Driver, KernelMetadata, Launcher
from tilec.backends.target import CompileOptions, Target
from tilec.errors import UsageError
from tilec.ir import types as ir
from tilec.ir.argspec import pointer_arg, scalar_arg


@pytest.mark.parametrize("name", ["cpu", "cuda"])
def test_built_in_backends_satisfy_the_protocol(name):
    backend = registry.get(name)
    assert isinstance(backend.driver, Driver)
    assert isinstance(backend.compiler, Compiler)
    assert backend.driver.name == name
    assert backend.driver.memory == registry.memory(name)


def test_the_default_is_an_available_backend():
    assert registry.default() in registry.PREFERENCE
    assert registry.for_memory(registry.memory(registry.HOST)) == registry.HOST


def test_unknown_backends_are_usage_errors():
    with pytest.raises(UsageError, match="unknown backend"):
        registry.get("tpu")
    with pytest.raises(UsageError, match="backend must be one of"):
        registry.check_name("tpu")


def test_both_launchers_are_launchers(monkeypatch):
    from tilec.backends import launcher
    from tilec.backends.cpu.launch import CpuLauncher
    from tilec.backends.cuda.launch import CudaLauncher

    monkeypatch.setattr(launcher, "cuda_launcher", lambda: print)  # no libcuda here
    specs = (pointer_arg("x", ir.float32), scalar_arg("n", ir.int32))
    meta = KernelMetadata("k", "k", Target("cuda", "sm_90a"), CompileOptions(), specs)
    cuda = CudaLauncher(CompiledKernel(meta, {}), SimpleNamespace(handle=1, function=None), specs)
    host = Target("cpu", "generic", triple="x86_64-unknown-linux-gnu")
    cpu_meta = KernelMetadata("k", "k", host, CompileOptions(), specs)
    buffer = np.zeros(1, np.uint64)  # an address the launcher never calls: no launch here
    loaded = SimpleNamespace(address=buffer.ctypes.data)
    cpu = CpuLauncher(CompiledKernel(cpu_meta, {}), loaded, specs)
    assert isinstance(cuda, Launcher) and isinstance(cpu, Launcher)
    assert cpu.metadata.n_regs > 0 and cpu.metadata.shared > 0  # the host's figures
