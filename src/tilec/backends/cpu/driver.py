"""CpuDriver: load a compiled object into this process (MCJIT) and hand out its entry address;
launch it through launch.CpuLauncher; answer Triton's host questions for the host.

Every undefined symbol of the object (printf, libm's long tail, libcalls code generation adds) is
resolved through ctypes before linking, so a missing one is a clean LaunchError rather than LLVM's
fatal error; the object's tables are checked first (objfile), since LLVM trusts them.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm

from ... import config
from ...errors import LaunchError, UnsupportedFeature, UsageError
from ...ir.argspec import ArgSpec
from ..artifacts import CompiledKernel, Stage
from ..base import Benchmarker, GPUTarget
from ..llvm import forksafe, machine
from ..target import Target
from . import objfile, occupancy, timing
from .launch import CpuLauncher

_lock = threading.Lock()

_ALIASES = {"win32": {"j0": "_j0", "j1": "_j1", "y0": "_y0", "y1": "_y1"}}


@functools.cache
def _c_libraries() -> tuple[Any, ...]:
    # lazy: imports subprocess and tempfile (~15 ms): only when a symbol is missing
    import ctypes.util

    libs: list[Any] = []
    if sys.platform == "win32":
        for name in ("ucrtbase", "msvcrt", "ntdll"):
            try:
                libs.append(ctypes.CDLL(name))
            except OSError:
                continue
    else:
        libs.append(ctypes.CDLL(None))
        for name in ("m", "c"):
            path = ctypes.util.find_library(name)
            if path:
                try:
                    libs.append(ctypes.CDLL(path))
                except OSError:
                    continue
    return tuple(libs)


def _resolve(name: str) -> bool:
    """Make ``name`` visible to the JIT linker; False when no loaded C library has it."""
    if llvm.address_of_symbol(name):
        return True
    lookup = _ALIASES.get(sys.platform, {}).get(name, name)
    for lib in _c_libraries():
        try:
            fn = getattr(lib, lookup)
        except AttributeError:
            continue
        address = ctypes.cast(fn, ctypes.c_void_p).value
        llvm.add_symbol(name, address)
        if sys.platform == "darwin":  # Mach-O objects reference C symbols with a leading "_"
            llvm.add_symbol("_" + name, address)
        return True
    return False


@dataclass
class LoadedCpuKernel:
    """A kernel linked into this process; keep it alive while ``address`` may be called."""

    address: int
    symbol: str
    engine: Any = field(repr=False)


_FLUSH_BYTES = 64 << 20  # larger than any last-level cache


class CpuDriver:
    name = "cpu"
    memory = "cpu"  # kernels read host memory
    torch_device = "cpu"

    def is_available(self) -> bool:
        try:
            machine.host_cpu()
        except Exception:
            return False
        return True

    def current_target(self) -> Target:
        host = machine.host_cpu()
        return Target("cpu", host.name, host.features, host.triple)

    def target_for(self, arch: str) -> Target:
        raise UsageError("the cpu target is always this host; cross targets are not supported")

    def gpu_target(self) -> GPUTarget:
        return GPUTarget("cpu", self.current_target().arch, 1)

    def launcher(
        self, compiled: CompiledKernel, loaded: LoadedCpuKernel, params: Sequence[ArgSpec]
    ) -> CpuLauncher:
        return CpuLauncher(compiled, loaded, params)

    def device_properties(self, device: int = 0) -> dict[str, Any]:
        """Triton's property names with the CPU meanings of occupancy.py: a multiprocessor is
        a worker thread, ``max_shared_mem`` the stack each program's tile buffers live on and
        ``max_num_regs`` a core's SIMD registers × Triton's largest num_warps (warpSize 1), so
        ``max_num_regs // (n_regs * warpSize * num_warps)`` is at least one program per core."""
        return {
            "multiprocessor_count": config.get().num_threads or os.cpu_count() or 1,
            "max_shared_mem": occupancy.PROGRAM_STACK_BYTES,
            "max_num_regs": occupancy.max_num_regs(self.current_target()),
            "warpSize": 1,
            "sm_clock_rate": 0,
            "mem_clock_rate": 0,
            "mem_bus_width": 0,
        }

    def benchmarker(self, graph: bool = False) -> Benchmarker:
        if graph:
            raise UnsupportedFeature(
                "do_bench_cudagraph needs a CUDA device; use do_bench on the CPU"
            )
        return timing.time_calls

    # Triton's host API (runtime.driver.active): one device, no streams
    def current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        if device != 0:
            raise UsageError(f"the CPU backend has one device (0), not {device}")

    def current_stream(self, device: int | None = None) -> int:
        return 0

    def active_torch_device(self, torch: Any) -> Any:
        return torch.device("cpu")

    def empty_cache_for_benchmark(self) -> Any:
        """A buffer larger than the last-level cache; ``clear_cache`` writes it to evict."""
        import numpy as np  # lazy: ~60 ms, only benchmarks flushing the cache need it

        return np.empty(_FLUSH_BYTES, np.uint8)

    def clear_cache(self, cache: Any) -> None:
        cache.fill(0)

    def load(self, compiled: CompiledKernel) -> LoadedCpuKernel:
        obj = compiled.asm.get(Stage.OBJ.value)
        if not isinstance(obj, bytes):
            raise LaunchError(f"kernel {compiled.name!r} has no object code to load")
        try:  # LLVM crashes on a malformed object: read its tables here first
            needed = objfile.undefined_symbols(obj)
        except LaunchError as exc:
            raise LaunchError(f"kernel {compiled.name!r}: {exc}") from exc
        # a symbol the JIT linker cannot resolve is a fatal LLVM error: resolve every one first
        missing = [n for n in needed if not _resolve(n)]
        if missing:
            raise LaunchError(
                f"kernel {compiled.name!r} needs C functions this process lacks: "
                f"{', '.join(missing)}"
            )
        host = machine.host_cpu()
        tm = machine.new_target_machine(host.triple, host.name, host.features)
        forksafe.register(_lock)
        with _lock:
            empty = llvm.parse_assembly("")
            empty.triple = host.triple
            engine = llvm.create_mcjit_compiler(empty, tm)
            engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            engine.finalize_object()
            address = engine.get_function_address(compiled.metadata.symbol)
        if not address:
            raise LaunchError(f"entry symbol {compiled.metadata.symbol!r} not found in the object")
        return LoadedCpuKernel(address, compiled.metadata.symbol, engine)
