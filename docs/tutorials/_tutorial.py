"""What every tutorial shares: its command line, where its arrays live, its check and its plot.

Each tutorial is a script: ``python docs/tutorials/01_vector_add.py`` runs its kernel on the
CUDA GPU when torch sees one (else on the CPU), checks the result against a float64 reference,
then times the kernel beside torch (and Triton, when it is installed and a GPU is present) and
writes a CSV table and, with matplotlib installed (``pip install ".[plot]"``), a PNG plot.

``--quick`` shrinks every size so that a tutorial finishes in seconds on a small CPU;
``--device cpu`` forces the CPU; ``--numpy`` uses numpy arrays and never imports torch;
``--no-bench`` stops after the check.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import tilec
from tilec.testing import Benchmark, do_bench, perf_report


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


@dataclass(frozen=True)
class Session:
    """One tutorial run: its device, its array library and its sizes."""

    name: str
    device: str  # "cpu" or "cuda"
    quick: bool
    bench: bool
    save_path: Path
    torch: Any  # the torch module, or None: numpy arrays then carry the data
    triton: Any  # the triton module when installed and a GPU runs the tutorial, else None
    seed: int
    rng: np.random.Generator  # every call to rand() draws fresh values from it

    # ------------------------------------------------------------------ arrays
    def rand(
        self, shape: Sequence[int] | int, dtype: str = "float32", lo: float = -1.0, hi: float = 1.0
    ) -> Any:
        """Fresh uniform random values in [lo, hi) on the tutorial's device."""
        values = self.rng.uniform(lo, hi, shape).astype(dtype)
        return self.array(values)

    def empty(self, shape: Sequence[int] | int, dtype: str = "float32") -> Any:
        """An output buffer filled with NaN, so an element the kernel forgets shows up."""
        return self.array(np.full(shape, np.nan, dtype=dtype))

    def zeros(self, shape: Sequence[int] | int, dtype: str = "float32") -> Any:
        return self.array(np.zeros(shape, dtype=dtype))

    def array(self, values: np.ndarray) -> Any:
        """``values`` as a torch tensor on the device (with torch), else as numpy."""
        if self.torch is None:
            return np.ascontiguousarray(values)
        return self.torch.from_numpy(np.ascontiguousarray(values)).to(self.device)

    def numpy(self, x: Any) -> np.ndarray:
        """float64 numpy copy of a tensor or array, for references and checks."""
        if hasattr(x, "detach"):
            x = x.detach().float().cpu().numpy()
        return np.asarray(x, dtype=np.float64)

    def strides(self, x: Any) -> tuple[int, ...]:
        """Element strides of a tensor or a numpy array."""
        if callable(getattr(x, "stride", None)):
            return tuple(x.stride())
        return tuple(s // x.itemsize for s in x.strides)

    @property
    def cores(self) -> int:
        """How many programs keep the device busy: SMs on a GPU, cores on the CPU."""
        if self.device == "cuda":
            return int(self.torch.cuda.get_device_properties(0).multi_processor_count)
        import os

        return max(
            1,
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1,
        )

    # ------------------------------------------------------------------ checking
    def check(self, what: str, got: Any, expected: np.ndarray, atol: float, rtol: float) -> None:
        """Compare with a float64 reference; print the error and exit non-zero on a mismatch."""
        actual = self.numpy(got)
        if actual.shape != expected.shape:
            raise SystemExit(f"{what}: shape {actual.shape}, expected {expected.shape}")
        error = np.abs(actual - expected)
        worst = float(np.max(error)) if error.size else 0.0
        bad = ~(error <= atol + rtol * np.abs(expected))  # NaN counts as bad
        if bad.any():
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            raise SystemExit(
                f"{what}: {int(bad.sum())} of {bad.size} elements differ from the float64 "
                f"reference (first at {first}: {actual[first]!r} vs {expected[first]!r})"
            )
        print(f"check passed: {what} matches the float64 reference (max abs error {worst:.3g})")

    # ------------------------------------------------------------------ timing
    def time_ms(self, fn: Callable[[], Any]) -> tuple[float, float, float]:
        """Median, 20th and 80th percentile milliseconds of ``fn``."""
        warmup, rep = (2, 10) if self.quick else (25, 100)
        med, lo, hi = do_bench(
            fn, warmup=warmup, rep=rep, quantiles=[0.5, 0.2, 0.8], device=self.device
        )
        return med, lo, hi

    def providers(self, torch_too: bool = True) -> tuple[list[str], list[str]]:
        """The lines of a benchmark: tilec, then torch (or numpy), then Triton if present."""
        lines = ["tilec"]
        if torch_too:
            lines.append("torch" if self.torch is not None else "numpy")
        if self.triton is not None:
            lines.append("triton")
        return lines, [
            {"tilec": "tilec", "torch": "torch", "numpy": "numpy", "triton": "Triton"}[p]
            for p in lines
        ]

    def benchmark(self, fn: Callable[..., Any], **bench: Any) -> None:
        """Sweep ``fn`` with ``tilec.testing.perf_report`` and save its table and plot."""
        if not self.bench:
            return
        line_vals, line_names = self.providers(bench.pop("torch_too", True))
        styles = [("tab:blue", "-"), ("tab:green", "--"), ("tab:red", ":")]
        spec = Benchmark(
            line_arg="provider",
            line_vals=line_vals,
            line_names=line_names,
            styles=styles[: len(line_vals)],
            plot_name=f"{self.name}-{self.device}",
            **bench,
        )
        self.save_path.mkdir(parents=True, exist_ok=True)
        perf_report(spec)(fn).run(print_data=True, save_path=str(self.save_path))
        plot = self.save_path / f"{spec.plot_name}.png"
        wrote = [spec.plot_name + ".csv"] + ([plot.name] if plot.exists() else [])
        print(f"benchmark written to {self.save_path}: {', '.join(wrote)}")
        if not plot.exists():
            print('(no plot: install matplotlib, e.g. pip install ".[plot]")')


_TRITON_HEADER = """\
import triton
import triton.language as tl
from triton.language.extra import libdevice
"""


def triton_twins(triton: Any, *kernels: Any) -> Any:
    """The same ``@tilec.jit`` functions compiled by Triton: the comparison line of a plot.

    Their source is written under Triton's imports into a module of its own (Triton reads a
    kernel's source from its file), so the kernels Triton runs are exactly the tutorial's.
    """
    import importlib.util
    import inspect
    import tempfile
    import textwrap

    parts = [_TRITON_HEADER]
    for kernel in kernels:
        source = textwrap.dedent(inspect.getsource(kernel.fn))
        parts.append(source.replace("@tilec.jit", "@triton.jit", 1))  # also @tilec.jit(...)
    folder = Path(tempfile.mkdtemp(prefix="tilec-tutorial-"))
    path = folder / f"triton_twin_{kernels[0].fn.__name__}.py"
    path.write_text("\n\n".join(parts))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gbps(nbytes: float, ms: tuple[float, float, float]) -> tuple[float, float, float]:
    """Bandwidth in GB/s for (median, fast, slow) milliseconds; the slow time is the low bound."""
    med, lo, hi = ms
    return nbytes / med * 1e-6, nbytes / hi * 1e-6, nbytes / lo * 1e-6


def tflops(flops: float, ms: tuple[float, float, float]) -> tuple[float, float, float]:
    med, lo, hi = ms
    return flops / med * 1e-9, flops / hi * 1e-9, flops / lo * 1e-9


def start(name: str, description: str, argv: Sequence[str] | None = None) -> Session:
    """Parse the tutorial's command line and pick its device."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny sizes: seconds on a small CPU (what the tests run)",
    )
    parser.add_argument(
        "--device",
        choices=["auto", "cpu", "cuda"],
        default="auto",
        help="where to run (auto: the GPU when torch sees one)",
    )
    parser.add_argument(
        "--no-bench", dest="bench", action="store_false", help="check the result only, do not time"
    )
    parser.add_argument(
        "--save-path",
        default="tutorial-results",
        help="folder for the benchmark's CSV and PNG (default: %(default)s)",
    )
    parser.add_argument(
        "--numpy", action="store_true", help="numpy arrays on the CPU, without importing torch"
    )
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    ns = parser.parse_args(argv)
    torch = None if ns.numpy else _optional("torch")
    has_gpu = torch is not None and torch.cuda.is_available()
    device = ns.device if ns.device != "auto" else ("cuda" if has_gpu else "cpu")
    if device == "cuda" and not has_gpu:
        raise SystemExit("--device cuda needs torch with a CUDA GPU; run `tilec doctor`")
    triton = _optional("triton") if device == "cuda" else None
    seed = ns.seed if ns.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    print(
        f"{name}: tilec {tilec.__version__} on {device}"
        f"{' (quick sizes)' if ns.quick else ''}, seed {seed}"
    )
    return Session(
        name,
        device,
        ns.quick,
        ns.bench,
        Path(ns.save_path),
        torch,
        triton,
        seed,
        np.random.default_rng(seed),
    )
