"""The PTX ISA version to emit: the architecture's minimum, within what the driver can load.

Versions are ints (80 = PTX 8.0). LLVM 22 aborts on a version below the architecture's minimum,
so the choice is validated here first; the driver (cuDriverGetVersion: 12080 = CUDA 12.8) caps it.
"""

from __future__ import annotations

from ...errors import PlatformError, UnsupportedFeature

# the lowest PTX ISA each architecture accepts in LLVM 22 (and that tilec's code needs)
ARCH_MIN = {
    "sm_70": 70, "sm_75": 70, "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_89": 78,
    "sm_90": 78, "sm_90a": 80, "sm_100": 86, "sm_100a": 86, "sm_120": 87, "sm_120a": 87,
}  # fmt: skip
LLVM_MAX = 90

# the newest PTX ISA a driver of each CUDA version loads (NVIDIA's release table)
_CUDA_MAX = (
    (13000, 90),
    (12090, 88),
    (12080, 87),
    (12050, 85),
    (12040, 84),
    (12030, 83),
    (12020, 82),
    (12010, 81),
    (12000, 80),
    (11080, 78),
    (11070, 77),
    (11060, 76),
    (11050, 75),
    (11040, 74),
    (11030, 73),
    (11020, 72),
    (11010, 71),
    (11000, 70),
)


def max_for_driver(cuda_version: int) -> int:
    """The newest PTX ISA a driver reporting ``cuda_version`` (e.g. 12080) can JIT or load."""
    for version, ptx in _CUDA_MAX:
        if cuda_version >= version:
            return ptx
    return 63


def choose(arch: str, driver_cuda_version: int | None = None, requested: int | None = None) -> int:
    """The PTX ISA version for ``arch`` (``requested`` when given and valid)."""
    low = ARCH_MIN.get(arch)
    if low is None:
        raise UnsupportedFeature(f"the CUDA backend does not know architecture {arch!r}")
    want = requested if requested is not None else low
    if not low <= want <= LLVM_MAX:
        raise UnsupportedFeature(
            f"PTX {want / 10:.1f} cannot target {arch} (needs {low / 10:.1f}..{LLVM_MAX / 10:.1f})"
        )
    if driver_cuda_version is not None:
        cap = max_for_driver(driver_cuda_version)
        if want > cap:
            raise PlatformError(
                f"the CUDA driver (CUDA {driver_cuda_version // 1000}.{driver_cuda_version % 1000 // 10}) "
                f"loads PTX up to {cap / 10:.1f}, but {arch} needs {want / 10:.1f}: update the driver"
            )
    return want
