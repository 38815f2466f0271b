"""GPU benchmark: tilec beside Triton and torch (cuBLAS / cuDNN) in one process, on one GPU.

Vector add (2^28 fp32), fused softmax (8192×4096 and 32768×1024 fp32), layer norm forward
(fp16), fp16 matmul and attention forward (fp16, non-causal). The Triton and tilec kernels come
from the same source (bench/gpu_kernels.py). Every tilec result is checked against torch before
timing; times are ``triton.testing.do_bench`` medians. Also measures the cold compile of a new
vector-add variant. Prints a table of ratios last and writes JSON to bench/results/.

    PYTHONPATH=src python3 bench/gpu.py [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import platform
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def load_kernels(use_tilec: bool) -> Any:
    name = "bench_gpu_kernels_tilec" if use_tilec else "bench_gpu_kernels_triton"
    spec = importlib.util.spec_from_file_location(name, HERE / "gpu_kernels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.USE_TILEC = use_tilec  # type: ignore[attr-defined]
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Row:
    name: str
    unit: str  # "GB/s" or "TFLOP/s"
    work: float  # bytes or flops per call
    ms: dict[str, float] = field(default_factory=dict)
    ok: dict[str, bool] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def rate(self, impl: str) -> float:
        ms = self.ms.get(impl)
        if not ms:
            return float("nan")
        return self.work / (ms * 1e-3) / (1e9 if self.unit == "GB/s" else 1e12)


class TilecLauncher:
    """Launches a tilec kernel with ``kernel[grid](...)``; if the runtime path fails, compiles
    the same kernel through the frontend and backend and launches it with the backend's driver
    (recorded in ``mode``), so a runtime bug still leaves backend numbers."""

    def __init__(self) -> None:
        self.mode: dict[str, str] = {}
        self.direct: dict[Any, Any] = {}

    def __call__(
        self,
        kernel: Any,
        grid: tuple[int, ...],
        args: tuple[Any, ...],
        meta: dict[str, Any],
        num_warps: int,
    ) -> None:
        name = kernel.fn.__name__
        if self.mode.get(name, "jit") == "jit":
            try:
                kernel[grid](*args, **meta, num_warps=num_warps)
                self.mode[name] = "jit"
                return
            except Exception as exc:  # fall back below; keep the reason in the report
                self.mode[name] = f"direct (runtime failed: {type(exc).__name__}: {str(exc)[:200]})"
                traceback.print_exc()
        self._direct(kernel, grid, args, meta, num_warps)

    def _direct(
        self,
        kernel: Any,
        grid: tuple[int, ...],
        args: tuple[Any, ...],
        meta: dict[str, Any],
        num_warps: int,
    ) -> None:
        from tilec.backends.cuda.driver import CudaDriver, launch

        specs, runtime_args = _specs(kernel.fn, args, meta)
        key = (kernel.fn.__name__, tuple(specs), num_warps)
        loaded = self.direct.get(key)
        if loaded is None:
            from tilec.backends.target import CompileOptions
            from tilec.runtime.compiler import compile as tilec_compile

            driver = CudaDriver()
            compiled = tilec_compile(
                kernel.fn, specs, driver.current_target(), CompileOptions(num_warps=num_warps)
            )
            loaded = self.direct[key] = driver.load(compiled)
        launch(loaded, grid, tuple(runtime_args))


def _specs(
    fn: Callable[..., Any], args: tuple[Any, ...], meta: dict[str, Any]
) -> tuple[list[Any], list[Any]]:
    from tilec.ir import types as T
    from tilec.ir.argspec import ArgKind, ArgSpec, constexpr_arg, pointer_arg

    dtypes = {"torch.float32": T.float32, "torch.float16": T.float16, "torch.bfloat16": T.bfloat16}
    names = list(inspect.signature(fn).parameters)
    specs, runtime = [], []
    for name, value in zip(names, list(args) + [meta[n] for n in names[len(args) :]]):
        if name in meta:
            specs.append(constexpr_arg(name, value))
        elif hasattr(value, "data_ptr"):
            specs.append(pointer_arg(name, dtypes[str(value.dtype)], value.data_ptr() % 16 == 0))
            runtime.append(value)
        elif isinstance(value, float):
            specs.append(ArgSpec(name, ArgKind.SCALAR, T.float32))
            runtime.append(value)
        else:
            specs.append(
                ArgSpec(
                    name,
                    ArgKind.SCALAR,
                    T.int32 if abs(value) < 2**31 else T.int64,
                    divisible_by_16=value % 16 == 0,
                    equals_one=value == 1,
                )
            )
            if value != 1:
                runtime.append(value)
    return specs, runtime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller problems, fewer repetitions")
    parser.add_argument("--out", type=Path, default=HERE / "results", help="directory for the JSON")
    parser.add_argument("--only", default="", help="comma-separated benchmark names")
    opts = parser.parse_args()

    import torch
    import triton
    from gpu_cases import CASES  # type: ignore[import-not-found]
    from triton.testing import do_bench

    tk, tr = load_kernels(True), load_kernels(False)
    tilec_launch = TilecLauncher()
    rows: list[Row] = []
    for case in CASES:
        if opts.only and case.__name__ not in opts.only.split(","):
            continue
        try:
            rows.extend(case(torch, tk, tr, tilec_launch, do_bench, opts.quick))
        except Exception as exc:  # one broken benchmark must not hide the others
            traceback.print_exc()
            rows.append(
                Row(
                    case.__name__,
                    "GB/s",
                    0.0,
                    notes={"error": f"{type(exc).__name__}: {exc}"[:300]},
                )
            )
    compile_ms = _compile_time(tk, tr, torch)
    report = {
        "machine": _machine(torch, triton),
        "tilec_mode": tilec_launch.mode,
        "compile_new_vector_add_ms": compile_ms,
        "rows": [dict(asdict(r), rates={k: r.rate(k) for k in r.ms}) for r in rows],
    }
    opts.out.mkdir(parents=True, exist_ok=True)
    path = opts.out / f"gpu-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(report, indent=2, default=str))
    _table(rows, compile_ms, tilec_launch.mode)
    print(f"wrote {path}")


def _compile_time(tk: Any, tr: Any, torch: Any) -> dict[str, Any]:
    """Wall time to compile a vector-add variant never seen before, in this warm process
    (tilec: frontend → passes → LLVM → PTX → cubin through nvJitLink, no disk cache)."""
    from tilec.backends.cuda.driver import CudaDriver
    from tilec.backends.target import CompileOptions
    from tilec.ir import types as T
    from tilec.ir.argspec import constexpr_arg, pointer_arg, scalar_arg
    from tilec.runtime.compiler import compile as tilec_compile

    target = CudaDriver().current_target()
    out: dict[str, Any] = {"tilec": [], "tilec_load": []}
    for block in (256, 512, 2048):
        specs = [
            pointer_arg("a_ptr", T.float32),
            pointer_arg("b_ptr", T.float32),
            pointer_arg("c_ptr", T.float32),
            scalar_arg("n", T.int32, True),
            constexpr_arg("BLOCK", block),
        ]
        t0 = time.perf_counter()
        compiled = tilec_compile(tk.vector_add.fn, specs, target, CompileOptions(num_warps=4))
        t1 = time.perf_counter()
        CudaDriver().load(compiled)
        t2 = time.perf_counter()
        out["tilec"].append((t1 - t0) * 1e3)
        out["tilec_load"].append((t2 - t1) * 1e3)
    x = torch.empty(1 << 20, device="cuda")
    triton_ms = []
    for block in (256, 512, 2048):
        t0 = time.perf_counter()
        tr.vector_add.warmup(x, x, x, x.numel(), BLOCK=block, grid=(1,))
        triton_ms.append((time.perf_counter() - t0) * 1e3)
    out["triton_warmup"] = triton_ms
    return out


def _machine(torch: Any, triton: Any) -> dict[str, Any]:
    import llvmlite

    from tilec.backends.cuda.driver import CudaDriver, _cu, check

    info = {
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "llvmlite": llvmlite.__version__,
        "python": platform.python_version(),
    }
    try:
        info["driver_cuda"] = check(_cu().cuDriverGetVersion(), "cuDriverGetVersion")
        info["target"] = str(CudaDriver().current_target())
    except Exception as exc:  # informational only
        info["driver_error"] = str(exc)
    return info


def _table(rows: list[Row], compile_ms: dict[str, Any], mode: dict[str, str]) -> None:
    print()
    print(
        f"{'benchmark':34s} {'unit':8s} {'tilec':>9s} {'triton':>9s} {'torch':>9s} {'t/triton':>9s} {'t/torch':>8s}  ok"
    )
    for r in rows:
        t, tt, th = r.rate("tilec"), r.rate("triton"), r.rate("torch")
        ok = "".join(k[0] if v else k[0].upper() + "!" for k, v in r.ok.items())
        print(
            f"{r.name:34s} {r.unit:8s} {t:9.1f} {tt:9.1f} {th:9.1f} {t / tt:9.3f} {t / th:8.3f}  {ok} {r.notes.get('error', '')}"
        )
        others = [k for k in r.ms if k not in ("tilec", "triton", "torch")]
        if others:  # other tilec configurations of the same problem
            print("    " + ", ".join(f"{k} {r.rate(k):.1f} ({r.rate(k) / tt:.3f})" for k in others))

    def fmt(key: str) -> str:
        return ", ".join(f"{v:.1f}" for v in compile_ms[key])

    print(
        f"cold compile, new vector-add variant (ms): tilec {fmt('tilec')} "
        f"(+load {fmt('tilec_load')}), triton warmup {fmt('triton_warmup')}"
    )
    modes = {k: v for k, v in mode.items() if v != "jit"}
    print("tilec launch path:", modes if modes else "kernel[grid] for all")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
