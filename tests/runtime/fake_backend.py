"""A fake backend for runtime tests: kernels are Python functions run per program through a
ctypes callback that has the CPU kernel ABI, so the real launcher, packing and status block are
exercised without the frontend or LLVM."""

from __future__ import annotations

import ctypes
import struct
import types
from dataclasses import dataclass, field
from typing import Any

from tilec.backends.artifacts import AssertInfo, CompiledKernel, KernelMetadata
from tilec.backends.target import Target
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


class FakeCompiler:
    def stages(self):
        return ()

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
    def is_available(self):
        return True

    def current_target(self):
        return Target("cpu", "fake-cpu", triple="fake")

    def load(self, compiled):
        STATS.loads += 1
        return Loaded(compiled)


@dataclass(frozen=True)
class Backend:
    name: str
    compiler: Any
    driver: Any


FAKE = Backend("cpu", FakeCompiler(), FakeDriver())


def install(monkeypatch) -> None:
    """Route the runtime to the fake backend (cpu only) for one test."""
    import importlib
    import sys

    from tilec.runtime import compiler, jit

    try:
        registry = importlib.import_module("tilec.backends.registry")
    except ImportError:
        registry = types.ModuleType("tilec.backends.registry")
        monkeypatch.setitem(sys.modules, "tilec.backends.registry", registry)
        import tilec.backends

        monkeypatch.setattr(tilec.backends, "registry", registry, raising=False)

    def get(kind: str):
        if kind != "cpu":
            from tilec.errors import PlatformError

            raise PlatformError(f"fake registry has no {kind!r} backend")
        return FAKE

    monkeypatch.setattr(registry, "get", get, raising=False)
    monkeypatch.setattr(compiler, "build_ir", build_ir)
    monkeypatch.setattr(jit, "_TARGETS", {})
    STATS.compiles = 0
    STATS.loads = 0
    STATS.builds.clear()


def f32(address: int, index: int) -> ctypes.c_float:
    return ctypes.c_float.from_address(address + 4 * index)
