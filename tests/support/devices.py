"""Run one test kernel on the CPU backend and, where there is a GPU, on CUDA.

``DEVICES`` parametrizes a test over "cpu" and "cuda" (the latter marked gpu, skipped without a
GPU); ``dev`` moves a numpy array or torch tensor there, ``host`` brings the result back.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest


@cache
def cuda_ready() -> bool:
    try:
        import torch

        from tilec.backends.cuda.driver import CudaDriver

        return bool(torch.cuda.is_available()) and CudaDriver().is_available()
    except Exception:  # torch or the driver missing: the GPU cases skip
        return False


DEVICES = [
    "cpu",
    pytest.param(
        "cuda",
        marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(not cuda_ready(), reason="needs an NVIDIA GPU and torch"),
        ],
    ),
]  # fmt: skip


def dev(a: Any, device: str) -> Any:
    """``a`` (numpy or torch) on ``device``: numpy stays numpy on the CPU."""
    if device == "cpu":
        return a
    import torch

    t = a if isinstance(a, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(a))
    return t.cuda()


def host(a: Any) -> Any:
    """A result back on the host: numpy for numpy, a CPU torch tensor for torch."""
    if isinstance(a, np.ndarray):
        return a
    import torch

    if a.is_cuda:
        torch.cuda.synchronize()
    return a.cpu()


def host_np(a: Any) -> np.ndarray:
    out = host(a)
    return out if isinstance(out, np.ndarray) else out.numpy()


def torch_dtype(name: str) -> Any:
    import torch

    return getattr(torch, name)


def assert_assembles(fn: Any, *sigs: Any, arch: str = "sm_90a") -> str:
    """Lower a test kernel to PTX offline (no GPU) and assemble it with ptxas when present."""
    from support.build import build
    from tilec.backends.cuda import assemble, toolchain
    from tilec.backends.cuda.compiler import CudaCompiler
    from tilec.backends.target import CompileOptions, Target

    module = build(getattr(fn, "fn", fn), *sigs)
    kernel = CudaCompiler(assembler="none").compile(module, Target("cuda", arch), CompileOptions())
    ptx = kernel.asm["ptx"]
    assert isinstance(ptx, str) and f".target {arch}" in ptx
    ptxas = toolchain.ptxas_path()
    if ptxas:
        assert assemble.with_ptxas(ptx, arch, ptxas).cubin
    return ptx
