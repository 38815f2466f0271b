"""``tilec compile PATH.py:NAME --signature ... --stage ... --target ...``.

Loads the @jit kernel from a file or module, compiles it through ``tilec.compile`` and writes
one stage (tile IR, LLVM IR, CPU assembly, PTX or cubin) to stdout or ``-o FILE``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .compile_api import compile as compile_kernel

_STAGES = ("tir", "llir", "asm", "obj", "ptx", "cubin")


def load_kernel(ref: str) -> Any:
    """The object ``NAME`` of ``PATH.py:NAME`` or ``package.module:NAME``."""
    where, sep, name = ref.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"kernel must be PATH.py:NAME or module:NAME, got {ref!r}")
    if where.endswith(".py"):
        path = Path(where)
        if not path.is_file():
            raise UsageError(f"no such file: {where}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot load {where}")
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)  # dataclasses and pickling look modules up
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    try:
        kernel = getattr(module, name)
    except AttributeError:
        raise UsageError(f"{where} has no attribute {name!r}") from None
    while not getattr(kernel, "__tilec_jit__", False) and hasattr(kernel, "fn"):
        kernel = kernel.fn  # autotune / heuristics wrappers
    return kernel


def main(ns: argparse.Namespace) -> int:
    stage = ns.stage.lower()
    if stage not in _STAGES:
        raise UsageError(f"unknown stage {ns.stage!r}; choose from {', '.join(_STAGES)}")
    kernel = load_kernel(ns.kernel)
    compiled = compile_kernel(kernel, ns.signature, target=ns.target, num_warps=ns.num_warps)
    if stage == "asm" and stage not in compiled.asm:  # the CPU backend makes it on request
        from ..backends import registry

        assembly = getattr(registry.get(compiled.metadata.target.kind).compiler, "assembly", None)
        if assembly is not None:
            compiled.asm[stage] = assembly(compiled)
    if stage not in compiled.asm:
        have = ", ".join(sorted(compiled.asm))
        raise UsageError(f"the {compiled.metadata.target.kind} target produces {have}, not {stage}")
    artifact = compiled.asm[stage]
    if ns.output:
        out = Path(ns.output)
        if isinstance(artifact, bytes):
            out.write_bytes(artifact)
        else:
            out.write_text(artifact, encoding="utf-8")
    elif isinstance(artifact, bytes):
        if sys.stdout.isatty():
            raise UsageError(f"{stage} is binary: write it to a file with -o")
        sys.stdout.buffer.write(artifact)
    else:
        sys.stdout.write(artifact if artifact.endswith("\n") else artifact + "\n")
    return 0
