"""Cold compile time of tilec, broken into phases, for the CUDA (PTX and cubin) and CPU backends.

Kernels (bench/gpu_kernels.py, as the runtime specializes them): Triton's tutorial fp16 matmul at
its configuration (BM=128 BN=256 BK=64, 8 warps, 3 stages) for sm_90a and sm_80, a vector add, a
row softmax and the flash-attention forward. Each compile runs the whole pipeline (frontend,
passes, backend) with the disk cache off and the per-kernel in-process caches cleared, in a warm
process (LLVM loaded, toolchain found). The compiles take turns (one of each kernel per round),
each phase is timed by the process's CPU time plus its children's (ptxas), which a loaded machine
disturbs less than wall time, and the table shows medians over the rounds.

Phases are exclusive (a phase's time excludes the phases it calls): frontend (Python → tile IR),
passes (tile-IR passes), lower (tile IR → llvmlite IR), llir (printing it to text), callees
(check_callees), parse (LLVM parse + verify), opt (LLVM's pipeline), emit (PTX or object
emission), ptxas (PTX → cubin, a subprocess), other (the rest: cache key, optimized IR text, ...).
The CPU backend's LLVM work runs in-process here (in real use a worker process does the same).

    PYTHONPATH=src python bench/compile_time.py [--rounds 5] [--only matmul] [--out DIR]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import json
import os
import platform
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PHASES = ("frontend", "passes", "lower", "llir", "callees", "parse", "opt", "emit", "ptxas")


def cpu_clock() -> float:
    """Seconds of CPU time used by this process and its waited-for children (ptxas)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


class PhaseClock:
    """Exclusive time per phase: wrapped functions push a phase; nested phases are subtracted."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.totals: dict[str, float] = {}
        self.stack: list[list[float]] = []  # [start, time spent in nested phases]
        self.seen: dict[str, Any] = {}  # the last value some phases returned (IR text, PTX)

    def wrap(self, owner: Any, attr: str, phase: str, keep: bool = False) -> None:
        fn = getattr(owner, attr)

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.stack.append([self.clock(), 0.0])
            try:
                result = fn(*args, **kwargs)
            finally:
                start, nested = self.stack.pop()
                spent = self.clock() - start
                self.totals[phase] = self.totals.get(phase, 0.0) + spent - nested
                if self.stack:
                    self.stack[-1][1] += spent
            if keep:
                self.seen[phase] = result
            return result

        setattr(owner, attr, timed)

    @contextmanager
    def run(self) -> Iterator[dict[str, float]]:
        self.totals, self.seen = {}, {}
        out: dict[str, float] = {}
        start, wall = self.clock(), time.perf_counter()
        yield out
        out.update(self.totals)
        out["total"] = self.clock() - start
        out["other"] = out["total"] - sum(self.totals.values())
        out["wall"] = time.perf_counter() - wall


def instrument(clock: PhaseClock) -> None:
    """Wrap the compiler's phase functions (the modules are the real ones; nothing else changes
    but that CPU code generation runs in this process)."""
    import tilec.frontend  # after the kernels (tilec.language first: the order it imports in)
    from tilec.backends.cpu import compiler as cpu_compiler
    from tilec.backends.cuda import assemble, nvptx
    from tilec.backends.cuda import compiler as cuda_compiler
    from tilec.backends.llvm import codegen_worker, isolation
    from tilec.passes import pipeline

    clock.wrap(tilec.frontend, "build_module", "frontend")
    clock.wrap(pipeline, "optimize", "passes")
    clock.wrap(cuda_compiler, "_lower", "lower")
    clock.wrap(cuda_compiler, "lower", "llir", keep=True)
    clock.wrap(nvptx, "check_callees", "callees")
    clock.wrap(nvptx, "parse", "parse")
    clock.wrap(nvptx, "_link_libdevice", "parse")
    clock.wrap(nvptx, "optimize", "opt")
    clock.wrap(nvptx, "emit", "emit")
    clock.wrap(assemble, "with_ptxas", "ptxas", keep=True)
    clock.wrap(cpu_compiler, "build_module", "lower", keep=True)
    clock.wrap(codegen_worker, "parse", "parse")
    clock.wrap(codegen_worker, "optimize", "opt")
    clock.wrap(codegen_worker, "emit_object", "emit")
    isolation._usable_python = lambda: False  # CPU code generation in this process, timed


def clear_caches() -> None:
    """Forget what an earlier compile of the same kernel left in this process."""
    from tilec.backends.cuda import nvptx
    from tilec.frontend import parse

    parse._parse_cached.cache_clear()
    nvptx._libdevice_subset.cache_clear()


# --- the kernels ---------------------------------------------------------------------------


def load_kernels() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_gpu_kernels_tilec", HERE / "gpu_kernels.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.USE_TILEC = True  # type: ignore[attr-defined]
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def arg_specs(fn: Any, sig: tuple[Any, ...]) -> list[Any]:
    """``"*fp16"`` pointer (16-byte aligned), ``"i32"``, ``"i32:16"`` (divisible by 16),
    ``"i32=1"`` (equal to one), ``"fp32"``; anything else a constexpr: as the runtime makes them."""
    import inspect

    from tilec.ir import types as T
    from tilec.ir.argspec import ArgKind, ArgSpec, constexpr_arg, pointer_arg, scalar_arg

    specs = []
    for name, s in zip(inspect.signature(fn.fn).parameters, sig, strict=True):
        if isinstance(s, str) and s.startswith("*"):
            specs.append(pointer_arg(name, T.BY_NAME[s[1:]]))
        elif isinstance(s, str) and s.endswith("=1"):
            specs.append(ArgSpec(name, ArgKind.SCALAR, T.BY_NAME[s[:-2]], equals_one=True))
        elif isinstance(s, str):
            base = s.removesuffix(":16")
            specs.append(scalar_arg(name, T.BY_NAME[base], s.endswith(":16")))
        else:
            specs.append(constexpr_arg(name, s))
    return specs


@dataclass(frozen=True)
class Case:
    name: str
    kernel: str
    sig: tuple[Any, ...]
    warps: int
    stages: int
    targets: tuple[str, ...]  # "sm_90a", "sm_80", "cpu"


MATMUL_SIG = ("*fp16", "*fp16", "*fp16", "i32:16", "i32:16", "i32:16", "i32:16", "i32=1",
              "i32:16", "i32=1", "i32:16", "i32=1", 128, 256, 64, 8)  # fmt: skip
SOFTMAX_SIG = ("*fp32", "*fp32", "i32:16", "i32:16", "i32:16", 1024)
ATTENTION_SIG = ("*fp16", "*fp16", "*fp16", "*fp16", "fp32", "i32:16", 64, 64, 64)
CASES = (
    Case("matmul 128x256x64 w8 s3", "matmul", MATMUL_SIG, 8, 3, ("sm_90a", "sm_80", "cpu")),
    Case("vector_add 1024", "vector_add", ("*fp32",) * 3 + ("i32", 1024), 4, 3, ("sm_90a", "cpu")),
    Case("softmax 1024", "softmax_rows", SOFTMAX_SIG, 4, 3, ("sm_90a", "cpu")),
    Case("attention d64 64x64", "attention_fwd", ATTENTION_SIG, 4, 3, ("sm_90a", "cpu")),
)


@dataclass
class Result:
    case: str
    target: str
    runs: list[dict[str, float]] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)

    def median(self, key: str) -> float:
        return statistics.median(r.get(key, 0.0) for r in self.runs)


def target_of(name: str) -> Any:
    from tilec.backends import registry
    from tilec.backends.target import Target

    if name == "cpu":
        return registry.get("cpu").driver.current_target()
    return Target("cuda", name)


def compile_once(kernels: Any, case: Case, target: str, clock: PhaseClock) -> dict[str, float]:
    from tilec.backends.target import CompileOptions
    from tilec.runtime.compiler import compile as tilec_compile

    fn = getattr(kernels, case.kernel)
    specs = arg_specs(fn, case.sig)
    options = CompileOptions(num_warps=case.warps, num_stages=case.stages)
    clear_caches()
    with clock.run() as times:
        compiled = tilec_compile(fn, specs, target_of(target), options, use_cache=False)
    clock.seen["compiled"] = compiled
    return times


def ir_instructions(text: str) -> int:
    """Instructions in LLVM IR text (indented body lines that are not comments)."""
    return sum(1 for line in text.splitlines() if line.startswith("  ") and line[2:3] not in ";}")


def ptx_instructions(text: str) -> int:
    count = 0
    for line in text.splitlines():
        s = line.strip()
        if s.endswith(";") and not s.startswith((".", "//")):
            count += 1
    return count


def sizes(seen: dict[str, Any]) -> dict[str, int]:
    compiled = seen["compiled"]
    out = {}
    if "llir" in seen:  # CUDA: (LLVM IR text, lowering state)
        out["llir_in"] = ir_instructions(seen["llir"][0])
    if "lower" in seen:  # CPU: (llvmlite module, symbol, asserts)
        out["llir_in"] = ir_instructions(str(seen["lower"][0]))
    out["llir_out"] = ir_instructions(str(compiled.asm.get("llir", "")))
    ptx = compiled.asm.get("ptx")
    if isinstance(ptx, str):
        out["ptx"] = ptx_instructions(ptx)
        out["regs"] = compiled.metadata.n_regs
        out["spills"] = compiled.metadata.n_spills
    return out


# --- report --------------------------------------------------------------------------------

COLUMNS = (*PHASES, "other", "total", "wall")


def report(results: list[Result]) -> None:
    head = f"{'kernel':28} {'target':6} " + " ".join(f"{c:>7}" for c in COLUMNS)
    print("\nmedian milliseconds per cold compile (CPU time; wall = elapsed)")
    print(head)
    print("-" * len(head))
    for r in results:
        cells = " ".join(f"{r.median(c) * 1e3:7.1f}" for c in COLUMNS)
        print(f"{r.case:28} {r.target:6} {cells}")
    print("\nsizes: LLVM IR instructions in/out of LLVM's pipeline, PTX instructions, registers")
    for r in results:
        facts = "  ".join(f"{k}={v}" for k, v in r.sizes.items())
        print(f"{r.case:28} {r.target:6} {facts}")


def machine() -> dict[str, Any]:
    import llvmlite

    import tilec
    from tilec.backends.cuda import toolchain

    return {
        "cores": os.cpu_count(),
        "load": os.getloadavg(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "tilec": tilec.__version__,
        "llvmlite": llvmlite.__version__,
        "ptxas": f"{toolchain.ptxas_path()} {toolchain.ptxas_version()}",
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5, help="timed compiles per kernel and target")
    p.add_argument("--only", default="", help="regex: kernels (name or target) to run")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    p.add_argument("--out", type=Path, default=HERE / "results")
    args = p.parse_args(argv)
    os.environ["TILEC_CACHE"] = "0"
    importlib.import_module("tilec.config").reload()
    clock = PhaseClock(cpu_clock if args.clock == "cpu" else time.perf_counter)
    kernels = load_kernels()
    instrument(clock)
    todo = [
        (case, target)
        for case in CASES
        for target in case.targets
        if not args.only or re.search(args.only, f"{case.name} {target}")
    ]
    results = {(c.name, t): Result(c.name, t) for c, t in todo}
    for case, target in todo:  # warm-up: imports, LLVM, toolchain search
        compile_once(kernels, case, target, clock)
        results[case.name, target].sizes = sizes(clock.seen)
    for _ in range(args.rounds):
        for case, target in todo:
            results[case.name, target].runs.append(compile_once(kernels, case, target, clock))
    rows = list(results.values())
    report(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"compile-time-{time.strftime('%Y%m%dT%H%M%S')}.json"
    doc = {
        "machine": machine(),
        "clock": args.clock,
        "rounds": args.rounds,
        "results": [
            {
                "kernel": r.case,
                "target": r.target,
                "median_ms": {c: r.median(c) * 1e3 for c in COLUMNS},
                "sizes": r.sizes,
                "runs_ms": [{k: v * 1e3 for k, v in run.items()} for run in r.runs],
            }
            for r in rows
        ],
    }
    path.write_text(json.dumps(doc, indent=2))
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
