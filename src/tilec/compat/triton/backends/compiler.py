"""``triton.backends.compiler``: GPUTarget and the BaseBackend a host asks for options.

``make_backend(target).parse_options({...})`` answers what Inductor reads (num_warps,
num_stages, supported fp8 types ...); compiling goes through ``triton.compile``, which runs
tilec's one pipeline.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import Any

from ....errors import UnsupportedFeature, UsageError
from ....runtime.driver import GPUTarget

__all__ = ["BaseBackend", "CpuBackend", "CudaBackend", "GPUTarget", "Options"]


@dataclass(frozen=True)
class Options:
    """Triton's backend options: the launch options tilec knows plus what hosts read."""

    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    maxnreg: int | None = None
    enable_fp_fusion: bool = True
    debug: bool = False
    sanitize_overflow: bool = False
    launch_cooperative_grid: bool = False
    launch_pdl: bool = False
    cluster_dims: tuple[int, int, int] = (1, 1, 1)
    # tilec's values have no fp8 types yet: hosts must not generate them
    supported_fp8_dtypes: tuple[str, ...] = ()
    deprecated_fp8_dot_operand_dtypes: tuple[str, ...] = ()
    default_dot_input_precision: str = "tf32"
    allowed_dot_input_precisions: tuple[str, ...] = ("tf32", "tf32x3", "ieee")
    backend_name: str = "cpu"
    arch: Any = None
    warp_size: int = 1

    def hash(self) -> str:
        return hashlib.sha256(repr(self).encode()).hexdigest()


class BaseBackend:
    """One target's compiler half, as Triton hosts see it."""

    backend_name = ""

    def __init__(self, target: GPUTarget) -> None:
        if not self.supports_target(target):
            raise UsageError(f"{type(self).__name__} does not compile for {target}")
        self.target = target

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        raise NotImplementedError

    def parse_options(self, options: dict[str, Any]) -> Options:
        known = {f.name for f in dataclasses.fields(Options)}
        given = {k: v for k, v in options.items() if k in known}
        if "cluster_dims" in given:
            given["cluster_dims"] = tuple(given["cluster_dims"])
        return Options(
            **given,
            backend_name=self.target.backend,
            arch=self.target.arch,
            warp_size=self.target.warp_size,
        )

    def hash(self) -> str:
        return f"tilec-{self.target.backend}-{self.target.arch}"

    def get_codegen_implementation(self, options: Any) -> dict[str, Any]:
        return {}

    def get_module_map(self) -> dict[str, Any]:
        return {}

    def load_dialects(self, context: Any) -> None:
        raise UnsupportedFeature("Triton's MLIR dialects: tilec compiles without MLIR")

    def add_stages(self, stages: dict[str, Any], options: Any, language: Any = None) -> None:
        raise UnsupportedFeature("Triton's MLIR compile stages: tilec compiles without MLIR")


class CpuBackend(BaseBackend):
    backend_name = "cpu"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cpu"


class CudaBackend(BaseBackend):
    backend_name = "cuda"

    @staticmethod
    def supports_target(target: GPUTarget) -> bool:
        return target.backend == "cuda"
