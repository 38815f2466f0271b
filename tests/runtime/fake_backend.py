"""The fake backend: a third backend, registered through the backend protocol alone.

Its kernels are Python functions run per program through a ctypes callback that has the CPU
kernel ABI, so the real launcher, packing and status block are exercised without the frontend
or LLVM. It plugs in with one ``registry.register`` line and is chosen with ``backend="fake"``
(the ``fake`` fixture sets TILEC_BACKEND's setting to it); nothing outside this file names it."""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass, field
from typing import Any

from tilec.backends import registry
from tilec.backends.base import (
    AssertInfo,
    CompiledKernel,
    GPUTarget,
    KernelMetadata,
    Stage,
    Target,
)
from tilec.backends.cpu.launch import CpuLauncher
from tilec.backends.cpu.timing import time_calls
from tilec.errors import UnsupportedFeature, UsageError
from tilec.ir import types as ir
from tilec.ir.argspec import ArgKind

ENTRY = ctypes.CFUNCTYPE(
    None,
    ctypes.POINTER(ctypes.c_uint64),
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.POINTER(ctypes.c_int64),
)

# kernel name -> program(args: list, pid: int, grid) ; returns None or an assert index that failed
PROGRAMS: dict[str, Any] = {}
ASSERTS: dict[str, tuple[AssertInfo, ...]] = {}


@dataclass
class Stats:
    compiles: int = 0
    loads: int = 0
    builds: list = field(default_factory=list)


STATS = Stats()


@dataclass
class FakeModule:
    name: str
    specs: tuple


def build_ir(fn, specs, *, name=None, debug=False):
    fn = getattr(fn, "fn", fn)
    STATS.builds.append(tuple(specs))
    return FakeModule(name or fn.__name__, tuple(specs))


def _unpack(spec, slot: int) -> Any:
    if spec.kind is ArgKind.POINTER:
        return slot
    t = spec.type
    if t is ir.float32 or t == ir.float32:
        return struct.unpack("<f", struct.pack("<Q", slot)[:4])[0]
    if t.kind is ir.Kind.SINT and slot >= 1 << 63:
        return slot - (1 << 64)
    return slot


NAME = "fake"


class FakeCompiler:
    def stages(self):
        return (Stage.TIR, Stage.LLIR)

    def compile(self, module, target, options):
        STATS.compiles += 1
        runtime = tuple(s for s in module.specs if s.is_runtime)
        meta = KernelMetadata(
            name=module.name,
            symbol=module.name,
            target=target,
            options=options,
            params=runtime,
            asserts=ASSERTS.get(module.name, ()),
        )
        text = "\n".join(str(s) for s in module.specs)
        return CompiledKernel(meta, {"tir": text, "llir": f"; fake {module.name}"})


class Loaded:
    def __init__(self, compiled):
        meta = compiled.metadata
        program = PROGRAMS[meta.name]
        params = meta.params

        def entry(args, gx, gy, gz, begin, end, status):
            values = [_unpack(p, args[i]) for i, p in enumerate(params)]
            for pid in range(begin, end):
                failed = program(values, pid, (gx, gy, gz))
                if failed is not None:
                    if status[0] == 0:
                        status[0] = failed + 1
                        status[1] = pid
                    return

        self._cb = ENTRY(entry)
        self.address = ctypes.cast(self._cb, ctypes.c_void_p).value


class FakeDriver:
    """A host device: arrays in host memory, programs run by the CPU kernel ABI's launcher."""

    name = NAME
    memory = "cpu"  # host arrays
    torch_device = "cpu"

    def is_available(self):
        return True

    def current_target(self):
        return Target(NAME, "fake-cpu", triple="fake")

    def target_for(self, arch):
        raise UsageError(f"the {NAME} backend has one target")

    def gpu_target(self):
        return GPUTarget(NAME, "fake-cpu", 1)

    def load(self, compiled):
        STATS.loads += 1
        return Loaded(compiled)

    def launcher(self, compiled, loaded, params):
        return CpuLauncher(compiled, loaded, params)

    def device_properties(self, device=0):
        return {"multiprocessor_count": 1, "max_shared_mem": 1 << 20, "max_num_regs": 1024,
                "warpSize": 1, "sm_clock_rate": 0, "mem_clock_rate": 0, "mem_bus_width": 0}  # fmt: skip

    def benchmarker(self, graph=False):
        if graph:
            raise UnsupportedFeature(f"the {NAME} backend has no graphs")
        return time_calls

    def current_device(self):
        return 0

    def set_current_device(self, device):
        if device != 0:
            raise UsageError(f"the {NAME} backend has one device")

    def current_stream(self, device=None):
        return 0

    def active_torch_device(self, torch):
        return torch.device("cpu")

    def empty_cache_for_benchmark(self):
        return bytearray(1 << 20)

    def clear_cache(self, cache):
        cache[:] = bytes(len(cache))


def register() -> None:
    """Plug the backend in (once per process: the registry is append-only)."""
    if NAME not in registry.BACKENDS:
        registry.register(NAME, registry.Entry(__name__, "FakeCompiler", "FakeDriver", "cpu"))


def install(monkeypatch) -> None:
    """Register the fake backend and give the runtime its stand-in frontend for one test;
    launches choose it with ``config.override(backend="fake")`` or ``backend="fake"``."""
    from tilec.runtime import compiler, kernel_table

    register()
    monkeypatch.setattr(compiler, "build_ir", build_ir)
    monkeypatch.setattr(kernel_table, "_TARGETS", {})
    STATS.compiles = 0
    STATS.loads = 0
    STATS.builds.clear()


def f32(address: int, index: int) -> ctypes.c_float:
    return ctypes.c_float.from_address(address + 4 * index)
