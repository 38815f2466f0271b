"""Compile-side scenarios for test_process_survives.py (see scenarios.py): CPU cost models, IR
that makes LLVM assert, odd and random kernels for every target."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scenarios_launch import _fail

import tilec


def _softmax_reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_cpu_models(*archs: str) -> None:
    """Tutorial 02's softmax, every test size, compiled for other CPU models' cost models (the
    LLVM loop vectorizer asserted on znver4 only) and run on this host."""
    from conformance import kernels
    from tilec.backends.target import CompileOptions, Target
    from tilec.runtime import compiler

    sizes = [(1, 1), (37, 100), (9, 128), (64, 33), (5, 300)]
    for rows, cols in sizes:
        x = np.random.default_rng().uniform(-5, 5, (rows, cols)).astype(np.float32)
        out = np.full_like(x, np.nan)
        kernels.softmax(x, out, num_programs=4)
        if not np.allclose(out, _softmax_reference(x), rtol=2e-6, atol=1e-7):
            _fail(f"softmax {rows}x{cols} is wrong")
    host = kernels.softmax_kernel._kernels
    specs = next(iter(host.values())).params
    for arch in archs:
        target = Target("cpu", arch, "", "x86_64-unknown-linux-gnu")
        compiled = compiler.compile(
            kernels.softmax_kernel, specs, target, CompileOptions(), use_cache=False
        )
        if not compiled.asm["obj"]:
            _fail(f"no object for {arch}")


def vectorizer_assert_ir(path: str) -> None:
    """IR on which LLVM 22's loop vectorizer fails an assertion (abort) for znver4, through
    tilec's code generator: it must come back as an object, not end the process."""
    from tilec.backends.llvm import isolation

    out = isolation.generate(Path(path).read_text(), "x86_64-unknown-linux-gnu", "znver4", "", 3)
    if not out.obj:
        _fail("no object")


_NUMPY = {"fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "i1": np.bool_, "i8": np.int8}


_NUMPY.update({"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64})


def _arguments(signature: str) -> list[object]:
    """Launch values for a ``tilec.compile`` signature: big zeroed arrays, small ints (bf16,
    which numpy lacks, gets uint16 arrays: the launch is then a clean type error)."""
    values: list[object] = []
    for part in (p.strip() for p in signature.split(",")):
        if "=" in part:
            continue
        if part.startswith("*"):
            name = part[1:].split(":")[0]
            values.append(np.zeros(1 << 17, _NUMPY.get(name, np.uint16)))
        else:
            values.append(5)
    return values


def odd_kernels(*targets: str) -> None:
    """Every kernel of odd_kernels.py compiles for each target or raises a TilecError; on this
    host's CPU each one that compiled also runs on a 2x2x2 grid. The name goes to stderr
    first, so an abort names its kernel."""
    from robustness import odd_kernels as odd
    from tilec.errors import TilecError

    for name in sorted(odd.SIGNATURES):
        kernel, signature = getattr(odd, name), odd.SIGNATURES[name]
        for target in targets:
            print(f"compiling {name} for {target}", file=sys.stderr, flush=True)
            try:
                tilec.compile(kernel, signature, target=target)
            except TilecError:
                continue
            if target == "cpu":
                constexprs = dict(p.split("=") for p in signature.split(", ") if "=" in p)
                meta = {k: int(v) for k, v in constexprs.items()}
                print(f"running {name}", file=sys.stderr, flush=True)
                try:
                    kernel[(2, 2, 2)](*_arguments(signature), **meta)
                except TilecError:
                    continue


def _random_arguments(signature: str, rng: np.random.Generator) -> list[object]:
    values: list[object] = []
    for part in signature.split(", "):
        if part.startswith("*"):
            raw = rng.integers(-(2**62), 2**62, 256)
            dtype = _NUMPY.get(part[1:].split(":")[0], np.uint16)
            values.append(raw % 2 == 0 if dtype is np.bool_ else raw.astype(dtype))
        else:
            values.append(int(rng.integers(-3, 100)))
    return values


def fuzz_kernels(seed: str, count: str, folder: str, *targets: str) -> None:
    """Random kernels (kernel_fuzzer.py) compile for every target or raise a TilecError; on the
    CPU each one that compiled runs on random data. Progress goes to stderr, so an abort
    names its kernel and target."""
    import importlib.util

    from robustness import kernel_fuzzer
    from tilec.errors import TilecError

    path = Path(folder) / f"fuzz_{seed}.py"
    kernel_fuzzer.write_module(int(seed), int(count), path)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(int(seed))
    for name, signature in module.SIGNATURES.items():
        for target in targets:
            print(f"{path}:{name} for {target}", file=sys.stderr, flush=True)
            try:
                tilec.compile(getattr(module, name), signature, target=target)
                if target == "cpu":
                    getattr(module, name)[(2,)](*_random_arguments(signature, rng))
            except TilecError:
                continue
