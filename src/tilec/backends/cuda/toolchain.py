"""Where the CUDA toolchain pieces are: ptxas, nvJitLink and libdevice.

Asks tilec.platform's toolchain search (the same answer ``tilec doctor`` prints: TILEC_* overrides,
pip wheels, conda, CUDA_HOME, PATH), once per process; cuda.pathfinder is the fallback when that
search finds nothing.
"""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _platform() -> Any:
    try:
        from ...platform.toolchain import toolchain

        return toolchain()
    except Exception:  # a broken probe must not stop compilation; fall back to pathfinder
        return None


@cache
def ptxas_path() -> str | None:
    found = _platform()
    if found is not None and found.ptxas.found:
        return str(found.ptxas.path)
    try:
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
        from cuda.pathfinder import locate_bitcode_lib

        return str(locate_bitcode_lib("device").abs_path)
    except Exception:  # not installed: kernels that need libdevice raise when compiled
        return None


@cache
def nvjitlink_available() -> bool:
    try:
        from cuda.bindings import nvjitlink

        nvjitlink.version()
        return True
    except Exception:  # no wheel / no library: fall back to ptxas or the driver JIT
        return False
