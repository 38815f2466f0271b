"""The language conformance suite (tests/language) run on the GPU (marked gpu).

Each tests/language module is imported afresh with ``support.run.jit`` replaced by a wrapper that
moves numpy arguments to CUDA tensors, launches through ``kernel[grid]`` on the CUDA backend and
copies the arrays back, so every numpy float64 comparison in the suite checks GPU results.
Tests that take fixtures or parameters, and device_assert tests (a failed assert traps and
poisons the CUDA context), stay CPU-only.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cuda_harness import gpu_available

TESTS = Path(__file__).resolve().parents[2]
LANGUAGE = TESTS / "language"
SKIP_MODULES = {"test_debug"}  # device_assert traps the context on a GPU

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU and torch"),
]


class DeviceJIT:
    """``tilec.jit(fn)`` whose launches take numpy arrays and run them on ``device``."""

    __tilec_jit__ = True

    def __init__(self, fn: Any, device: str = "cuda") -> None:
        import tilec

        self.fn = fn
        self.device = device
        self.kernel = tilec.jit(fn)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)

    def __getitem__(self, grid: Any) -> Any:
        def launch(*args: Any, **kwargs: Any) -> Any:
            import torch

            moved = [
                torch.from_numpy(a).to(self.device) if isinstance(a, np.ndarray) else a
                for a in args
            ]
            result = self.kernel[grid](*moved, **kwargs)
            if self.device == "cuda":
                torch.cuda.synchronize()
            for a, t in zip(args, moved):
                if isinstance(a, np.ndarray):
                    a[...] = t.cpu().numpy()
            return result

        return launch


def load_module(path: Path, device: str) -> Any:
    """A fresh copy of a language test module whose kernels launch on ``device``."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import support.run as run

    saved = run.jit
    run.jit = lambda fn: DeviceJIT(fn, device)
    try:
        spec = importlib.util.spec_from_file_location(f"gpu_suite_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        run.jit = saved
    return module


def plain_tests(module: Any) -> list[str]:
    """Names of the module's tests that take no fixtures and no parameters."""
    out = []
    for name, fn in vars(module).items():
        plain = callable(fn) and not getattr(fn, "pytestmark", None)
        if name.startswith("test_") and plain and not inspect.signature(fn).parameters:
            out.append(name)
    return out


def _collect() -> list[tuple[str, str]]:
    if not gpu_available():
        return []
    found = []
    for path in sorted(LANGUAGE.glob("test_*.py")):
        if path.stem not in SKIP_MODULES:
            found += [(path.stem, name) for name in plain_tests(load_module(path, "cuda"))]
    return found


_MODULES: dict[str, Any] = {}


@pytest.mark.parametrize(("module", "name"), _collect(), ids=lambda x: x)
def test_language_suite_on_gpu(module: str, name: str) -> None:
    if module not in _MODULES:
        _MODULES[module] = load_module(LANGUAGE / f"{module}.py", "cuda")
    getattr(_MODULES[module], name)()
