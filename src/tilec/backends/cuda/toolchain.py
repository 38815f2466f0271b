"""Where the CUDA toolchain pieces are: ptxas, nvJitLink and libdevice, and what the driver loads.

Asks tilec.platform's toolchain search (the same answer ``tilec doctor`` prints: TILEC_* overrides,
pip wheels, conda, CUDA_HOME, PATH), once per process; cuda.pathfinder is the fallback when that
search finds nothing. ``assemblers()`` lists the tools with their CUDA versions, in the order
tilec.platform.target.plan_target tries them, and ``driver_cuda_version()`` is the driver's
cuDriverGetVersion that limits which of them may be used.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ...platform.matrix import version_tuple
from ...platform.target import NVJITLINK, PTXAS, Assembler
from ...platform.toolchain import stamp, toolchain


@cache
def _platform() -> Any:
    try:
        return toolchain()
    except Exception:  # a broken probe must not stop compilation; fall back to pathfinder
        return None


@cache
def ptxas_path() -> str | None:
    found = _platform()
    if found is not None and found.ptxas.found:
        return str(found.ptxas.path)
    try:
        # lazy: optional (cuda-pathfinder), the fallback when the platform probe finds no ptxas
        from cuda.pathfinder import find_nvidia_binary_utility

        path = find_nvidia_binary_utility("ptxas")
    except Exception:  # pathfinder missing or broken: no ptxas
        path = None
    return str(path) if path else None


@cache
def libdevice_path() -> str | None:
    found = _platform()
    if found is not None and found.libdevice.found:
        return str(found.libdevice.path)
    try:
        # lazy: optional (cuda-pathfinder), the fallback when the platform probe finds none
        from cuda.pathfinder import locate_bitcode_lib

        return str(locate_bitcode_lib("device").abs_path)
    except Exception:  # not installed: kernels that need libdevice raise when compiled
        return None


@cache
def nvjitlink_available() -> bool:
    try:
        from cuda.bindings import nvjitlink  # lazy: optional (the cuda extra)

        nvjitlink.version()
        return True
    except Exception:  # no wheel / no library: fall back to ptxas or the driver JIT
        return False


@cache
def nvjitlink_version() -> str:
    """'13.0' for the nvJitLink that cuda-bindings loads ('' when there is none)."""
    try:
        from cuda.bindings import nvjitlink  # lazy: optional (the cuda extra)

        return ".".join(map(str, nvjitlink.version()[:2]))
    except Exception:  # no wheel / no library
        return ""


@cache
def ptxas_version() -> str:
    """The CUDA version of ``ptxas_path()`` as the platform search read it ('' if unknown)."""
    found = _platform()
    if found is not None and found.ptxas.found and found.ptxas.path == ptxas_path():
        return str(found.ptxas.version)
    return ""


@cache
def driver_cuda_version() -> int | None:
    """cuDriverGetVersion of this machine's driver (13000 = CUDA 13.0); None without a driver."""
    found = _platform()
    if found is None or not found.libcuda.found or not found.libcuda.version:
        return None
    major, minor = (*version_tuple(found.libcuda.version), 0, 0)[:2]
    return major * 1000 + minor * 10


def assemblers(prefer: str = "auto") -> list[Assembler]:
    """The PTX → cubin tools at hand, in the order they are tried (``prefer`` narrows them)."""
    tools = []
    if prefer in ("auto", "nvjitlink") and nvjitlink_available():
        tools.append(Assembler(NVJITLINK, nvjitlink_version(), "cuda.bindings"))
    path = ptxas_path()
    if prefer in ("auto", "ptxas") and path:
        tools.append(Assembler(PTXAS, ptxas_version(), path))
    return tools


def identity() -> str:
    """What a cubin depends on besides tilec and LLVM, cheaply (no tool is run): every ptxas,
    nvJitLink and libdevice the search could pick, with size and modification time. In the cache
    key, so a kernel assembled by another ptxas, or cached as PTX only while no assembler was
    found, is not reused once they change."""
    return stamp()
