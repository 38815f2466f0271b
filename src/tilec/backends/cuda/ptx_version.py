"""The PTX ISA version to emit: the architecture's floor, within what the driver can load.

Versions are ints (80 = PTX 8.0). The choice is made by ``tilec.platform.target.choose_ptx`` over
the one support table (``tilec/platform/support.json``), the same function ``tilec doctor`` calls,
so the doctor's PTX version is the one compiled here. LLVM 22 aborts on a version below the
architecture's minimum, so the choice is validated before LLVM sees it.
"""

from __future__ import annotations

from ...errors import PlatformError, UnsupportedFeature
from ...platform.matrix import cuda_version_text, load_policy
from ...platform.target import Refusal, choose_ptx


def max_for_driver(cuda_version: int) -> int:
    """The newest PTX ISA a driver reporting ``cuda_version`` (e.g. 12080) can JIT or load."""
    return load_policy().max_ptx_for_cuda(cuda_version_text(cuda_version))


def raise_refusal(refusal: Refusal) -> None:
    """A ``Refusal`` as the error the backend raises: the driver's fault is a PlatformError."""
    if refusal.kind in ("driver-ptx", "no-assembler"):
        raise PlatformError(refusal.message)
    raise UnsupportedFeature(refusal.message)


def choose(arch: str, driver_cuda_version: int | None = None, requested: int | None = None) -> int:
    """The PTX ISA version for ``arch`` (``requested`` when given and valid)."""
    chosen = choose_ptx(arch, driver_cuda_version, requested)
    if isinstance(chosen, Refusal):
        raise_refusal(chosen)
        raise AssertionError("unreachable")
    return chosen[1]
