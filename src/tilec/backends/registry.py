"""The backends by name. Each is imported on first ``get`` (never at import time).

``BACKENDS`` is the literal table of the built-in backends; a plug-in adds itself with one
``register`` call. Each entry names the module holding the backend's compiler and driver
classes and the memory its kernels read (the device kind of an array argument), which is how
the runtime finds the backend for a launch without naming one.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

from .. import config
from ..errors import UsageError
from .base import Backend, Compiler


@dataclass(frozen=True)
class Entry:
    module: str  # imported on first use
    compiler: str  # class names in ``module``
    driver: str
    memory: str  # the device kind of the arrays its kernels read ("cpu": host memory)
    # the libraries ``extern_libs`` may name (None: they are ignored, as on the host, where
    # kernels call the C library's math functions)
    extern_libraries: frozenset[str] | None = None
    # "module:function" returning what else its compiled kernels depend on (the tools outside
    # tilec and llvmlite, with their versions): part of the cache key, so a kernel is never
    # reused from the cache after the tools that built it changed ("": nothing else)
    toolchain: str = ""
    # the most warps a kernel's block may have (None: num_warps does not shape its kernels)
    max_num_warps: int | None = None


BACKENDS: dict[str, Entry] = {
    "cpu": Entry("tilec.backends.cpu", "CpuCompiler", "CpuDriver", memory="cpu"),
    "cuda": Entry(
        "tilec.backends.cuda", "CudaCompiler", "CudaDriver", memory="cuda",
        extern_libraries=frozenset({"libdevice"}),
        toolchain="tilec.backends.cuda.toolchain:identity",
        max_num_warps=32,  # 1024 threads per block
    ),
}  # fmt: skip
# the backend of this host: where Triton's interpreter mode (TRITON_INTERPRET) runs kernels
# and what tilec.compile targets by default
HOST = "cpu"
# where a kernel runs when nothing says: the first of these whose driver is available
PREFERENCE = ("cuda", HOST)


def register(name: str, entry: Entry) -> None:
    """Add a backend (append-only: a name is never replaced)."""
    if name in BACKENDS:
        raise UsageError(f"a backend named {name!r} is registered already")
    BACKENDS[name] = entry


class _LazyCompiler:
    """A backend's compiler, imported and created on first use: loading a kernel from the
    disk cache needs only the driver, and the compiler's modules take ~40 ms to import."""

    def __init__(self, module_name: str, class_name: str) -> None:
        self._where = (module_name, class_name)
        self._compiler: Any = None

    def __getattr__(self, name: str) -> Any:  # stages, compile, assembly ...
        if self._compiler is None:
            module_name, class_name = self._where
            self._compiler = getattr(importlib.import_module(module_name), class_name)()
        return getattr(self._compiler, name)

    def __repr__(self) -> str:
        return f"<lazy {'.'.join(self._where)}>" if self._compiler is None else repr(self._compiler)


@functools.cache
def get(kind: str) -> Backend:
    """The backend called ``kind``, created once."""
    try:
        entry = BACKENDS[kind]
    except KeyError:
        raise UsageError(
            f"unknown backend {kind!r}; known: {', '.join(sorted(BACKENDS))}"
        ) from None
    module = importlib.import_module(entry.module)
    compiler: Compiler = _LazyCompiler(entry.module, entry.compiler)  # type: ignore[assignment]
    return Backend(kind, compiler, getattr(module, entry.driver)())


@functools.cache
def toolchain_key(kind: str) -> str:
    """What kernels compiled by backend ``kind`` depend on beyond tilec and llvmlite (once per
    process: the tools are found once)."""
    where = BACKENDS[check_name(kind)].toolchain
    if not where:
        return ""
    module_name, function = where.split(":")
    return str(getattr(importlib.import_module(module_name), function)())


def names() -> tuple[str, ...]:
    return tuple(BACKENDS)


def check_name(kind: str) -> str:
    """``kind`` when a backend has that name, else the UsageError listing the known ones."""
    if kind not in BACKENDS:
        raise UsageError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {kind!r}")
    return kind


def extern_libraries(kind: str) -> frozenset[str] | None:
    """The libraries backend ``kind`` links for ``extern_libs`` (None: it ignores them)."""
    entry = BACKENDS.get(kind)
    return None if entry is None else entry.extern_libraries


def max_num_warps(kind: str) -> int | None:
    """The most warps backend ``kind`` launches a kernel with (None: no limit of its own)."""
    entry = BACKENDS.get(kind)
    return None if entry is None else entry.max_num_warps


def memory(kind: str) -> str:
    """The device kind of the arrays backend ``kind`` reads."""
    return BACKENDS[check_name(kind)].memory


def for_memory(device: str) -> str:
    """The built-in backend whose kernels read arrays on ``device``."""
    for kind in PREFERENCE:
        if BACKENDS[kind].memory == device:
            return kind
    raise UsageError(f"no backend runs kernels on {device!r} arrays")


def forced() -> str | None:
    """The backend the configuration asks for (TILEC_BACKEND, interpreter mode), if any."""
    cfg = config.get()
    return cfg.backend or (HOST if cfg.interpret else None)


def default() -> str:
    """Where a kernel without array arguments runs: the first available of PREFERENCE."""
    for kind in PREFERENCE[:-1]:
        try:
            if get(kind).driver.is_available():
                return kind
        except Exception:  # a broken install (no library, no driver) leaves the next one usable
            continue
    return PREFERENCE[-1]
