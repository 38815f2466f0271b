"""CpuDriver: load a compiled object into this process (MCJIT) and hand out its entry address.

C library functions the code calls (printf, fflush, libm's long tail) are resolved through
ctypes before linking, so a missing one is a clean LaunchError rather than LLVM's fatal error.
"""

from __future__ import annotations

import ctypes
import functools
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import llvmlite.binding as llvm

from ...errors import LaunchError
from ..artifacts import CompiledKernel, Stage
from ..llvm import machine
from ..target import Target

_lock = threading.Lock()

# functions LLVM's code generator may call without a declaration in the IR
_CODEGEN_LIBCALLS = (
    "memcpy",
    "memset",
    "memmove",
    "fmodf",
    "fmod",
    "ldexpf",
    "ldexp",
    "__truncsfhf2",
    "__extendhfsf2",
    "__truncdfhf2",
    "__chkstk",  # Windows stack probes for frames past 4 KiB (tile buffers)
    "__chkstk_darwin",  # the same on macOS arm64
)
_ALIASES = {"win32": {"j0": "_j0", "j1": "_j1", "y0": "_y0", "y1": "_y1"}}
_DECLARE = re.compile(r'^declare[^@]*@"?([A-Za-z_][\w.$]*)"?\(', re.M)


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


def _external_functions(llir: str) -> list[str]:
    return [n for n in _DECLARE.findall(llir) if not n.startswith("llvm.")]


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
        llir = compiled.asm.get(Stage.LLIR.value, "")
        # a symbol the JIT linker cannot resolve is a fatal LLVM error: check every one first
        # (code generation may add calls, e.g. fp16 conversions, seen only in the object)
        needed = set(_external_functions(str(llir)))
        needed.update(n for n in _CODEGEN_LIBCALLS if n.encode() in obj)
        missing = sorted(n for n in needed if not _resolve(n))
        if missing:
            raise LaunchError(
                f"kernel {compiled.name!r} needs C functions this process lacks: "
                f"{', '.join(missing)}"
            )
        host = machine.host_cpu()
        tm = machine.new_target_machine(host.triple, host.name, host.features)
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
