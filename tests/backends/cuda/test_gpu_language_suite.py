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

            pairs: list[tuple[np.ndarray, Any]] = []

            def move(a: Any) -> Any:  # arrays, also inside (named) tuple arguments
                if isinstance(a, np.ndarray):
                    if not a.flags.writeable:  # the binder's numpy-only check (tuple_read_only)
                        pytest.skip("a read-only numpy array has no device-tensor counterpart")
                    pairs.append((a, torch.from_numpy(a).to(self.device)))
                    return pairs[-1][1]
                if isinstance(a, tuple):
                    items = [move(x) for x in a]
                    return type(a)(*items) if hasattr(a, "_fields") else type(a)(items)
                return a

            moved = [move(a) for a in args]
            result = self.kernel[grid](*moved, **kwargs)
            if self.device == "cuda":
                torch.cuda.synchronize()
            for a, t in pairs:
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


def runnable_tests(module: Any) -> list[tuple[str, int, dict[str, Any]]]:
    """(name, case index, keyword arguments) for each test that needs no fixtures: plain tests
    and tests with one ``parametrize`` mark, one entry per parameter set."""
    out: list[tuple[str, int, dict[str, Any]]] = []
    for name, fn in vars(module).items():
        if not (name.startswith("test_") and callable(fn)):
            continue
        marks = getattr(fn, "pytestmark", [])
        params = list(inspect.signature(fn).parameters)
        if not marks and not params:
            out.append((name, 0, {}))
        elif len(marks) == 1 and marks[0].name == "parametrize":
            argnames, values = marks[0].args[0], marks[0].args[1]
            names = (
                [n.strip() for n in argnames.split(",")]
                if isinstance(argnames, str)
                else list(argnames)
            )
            if sorted(names) != sorted(params):
                continue
            for i, v in enumerate(values):
                v = getattr(v, "values", v)
                args = (
                    v if len(names) > 1 else (v[0] if isinstance(v, tuple) and len(v) == 1 else v,)
                )
                out.append((name, i, dict(zip(names, args))))
    return out


def _collect() -> list[tuple[str, str, int]]:
    if not gpu_available():
        return []
    found = []
    for path in sorted(LANGUAGE.glob("test_*.py")):
        if path.stem not in SKIP_MODULES:
            module = load_module(path, "cuda")
            found += [(path.stem, name, i) for name, i, _ in runnable_tests(module)]
    return found


_MODULES: dict[str, Any] = {}


@pytest.mark.parametrize(("module", "name", "case"), _collect(), ids=str)
def test_language_suite_on_gpu(module: str, name: str, case: int) -> None:
    if module not in _MODULES:
        _MODULES[module] = load_module(LANGUAGE / f"{module}.py", "cuda")
    for test, index, kwargs in runnable_tests(_MODULES[module]):
        if test == name and index == case:
            getattr(_MODULES[module], name)(**kwargs)
            return
    raise AssertionError(f"{module}.{name}[{case}] disappeared")
