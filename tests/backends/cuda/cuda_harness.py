"""Run a conformance Case on the GPU: compile for the current device, upload inputs with torch,
NaN-poison outputs, launch through the CUDA driver and return (got, expected) per output."""

from __future__ import annotations

from typing import Any

import numpy as np
from cuda_ir_case import Case

from tilec.backends.cuda.compiler import CudaCompiler
from tilec.backends.cuda.driver import CudaDriver, launch
from tilec.backends.target import CompileOptions


def gpu_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available()) and CudaDriver().is_available()
    except Exception:  # torch or the driver missing: the GPU tests skip
        return False


def _poison(a: np.ndarray) -> np.ndarray:
    if np.issubdtype(a.dtype, np.floating):
        return np.full_like(a, np.nan)
    return np.full_like(a, np.iinfo(a.dtype).min)


def run_case(case: Case, seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    import torch

    rng = np.random.default_rng(seed)
    inputs = case.inputs(rng)
    outputs = case.outputs(inputs)
    if "zero_outputs" not in case.tags:
        outputs = {k: _poison(v) for k, v in outputs.items()}
    dev: dict[str, Any] = {
        k: torch.from_numpy(np.ascontiguousarray(v)).cuda()
        for k, v in {**inputs, **outputs}.items()
    }
    driver = CudaDriver()
    target = driver.current_target()
    compiled = CudaCompiler().compile(
        case.build(), target, CompileOptions(num_warps=case.num_warps)
    )
    kernel = driver.load(compiled)
    args = tuple(dev[a] if isinstance(a, str) else a for a in case.args(inputs))
    torch.cuda.synchronize()
    launch(kernel, case.grid(inputs), args)
    torch.cuda.synchronize()
    expected = case.reference(inputs)
    return {k: (dev[k].cpu().numpy(), expected[k]) for k in expected}


def check_case(case: Case, seed: int = 0) -> None:
    for name, (got, want) in run_case(case, seed).items():
        np.testing.assert_allclose(
            got.astype(np.float64),
            want,
            rtol=case.rtol,
            atol=case.atol,
            err_msg=f"{case.name}: output {name}",
        )
