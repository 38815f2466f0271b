"""CpuDriver: load a compiled object into this process (MCJIT) and hand out its entry address.

Every undefined symbol of the object (printf, libm's long tail, libcalls code generation adds) is
resolved through ctypes before linking, so a missing one is a clean LaunchError rather than LLVM's
fatal error; the object's tables are checked first (objfile), since LLVM trusts them.
"""

from __future__ import annotations

import ctypes
import functools
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm

from ...errors import LaunchError
from ..artifacts import CompiledKernel, Stage
from ..llvm import forksafe, machine
from ..target import Target
from . import objfile

_lock = threading.Lock()

_ALIASES = {"win32": {"j0": "_j0", "j1": "_j1", "y0": "_y0", "y1": "_y1"}}


@functools.cache
def _c_libraries() -> tuple[Any, ...]:
    import ctypes.util  # imports subprocess and tempfile (~10 ms): only when a symbol is missing

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


class CpuDriver:
    def is_available(self) -> bool:
        try:
            machine.host_cpu()
        except Exception:
            return False
        return True

    def current_target(self) -> Target:
        host = machine.host_cpu()
        return Target("cpu", host.name, host.features, host.triple)

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
