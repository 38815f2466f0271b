"""Where the CUDA toolchain pieces are: ptxas, nvJitLink and libdevice.

Uses cuda.pathfinder directly (the pip wheels nvidia-cuda-nvcc / nvidia-nvjitlink / nvidia-nvvm
or CUDA_HOME); TILEC_PTXAS_PATH and TILEC_LIBDEVICE_PATH override. Kept in this one small module
so it can switch to tilec.platform's toolchain probes (#3) without touching the compiler.
"""

from __future__ import annotations

import os
from functools import cache

from ... import config


@cache
def ptxas_path() -> str | None:
    override = config.get().ptxas_path
    if override:
        return override
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        found = find_nvidia_binary_utility("ptxas")
    except Exception:  # pathfinder missing or broken: no ptxas, not an error here
        found = None
    if found:
        return str(found)
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and os.path.exists(os.path.join(home, "bin", "ptxas")):
        return os.path.join(home, "bin", "ptxas")
    return None


@cache
def libdevice_path() -> str | None:
    override = config.get().libdevice_path
    if override:
        return override
    try:
        from cuda.pathfinder import locate_bitcode_lib

        return str(locate_bitcode_lib("device").abs_path)
    except Exception:  # not installed: kernels that need libdevice raise when compiled
        return None


@cache
def nvjitlink_available() -> bool:
    try:
        from cuda.bindings import nvjitlink
        from cuda.pathfinder import load_nvidia_dynamic_lib

        load_nvidia_dynamic_lib("nvJitLink")
        nvjitlink.version()
        return True
    except Exception:  # no wheel / no library: fall back to ptxas or the driver JIT
        return False
