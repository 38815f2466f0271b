"""``tilec compile PATH.py:NAME --signature ... --stage ... --target ...``.

Loads the @jit kernel from a file or module, compiles it through ``tilec.compile`` and writes
one stage (tile IR, LLVM IR, CPU assembly, PTX or cubin) to stdout or ``-o FILE``. Mistakes in
the user's file (a syntax error, a failing import), an unknown target and a missing CUDA extra
are UsageErrors with the position or the remedy, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from .backends import registry
from .errors import TilecError, UsageError
from .platform.matrix import Level, load_policy
from .runtime.compile_api import compile as compile_kernel
from .runtime.compile_api import parse_target
from .source import SourceLoc

_STAGES = ("tir", "llir", "asm", "obj", "ptx", "cubin")
# Until tilec is on a package index, the CUDA extra installs from a checkout of the source.
CUDA_EXTRA = (
    'pip install ".[cuda]"  (from a checkout of tilec; ".[cuda12]" for CUDA 12 drivers; '
    "`tilec doctor` prints the line for an installed wheel)"
)


def _syntax_error(exc: SyntaxError, where: str) -> UsageError:
    loc = SourceLoc(
        exc.filename or where,
        exc.lineno or 1,
        max((exc.offset or 1) - 1, 0),
        (exc.end_offset - 1) if exc.end_offset else None,
        (exc.text or "").rstrip("\n") or None,
    )
    return UsageError(loc.render(f"syntax error: {exc.msg}"))


def _import_error(exc: BaseException, where: str, path: Path | None) -> UsageError:
    """The user's module raised while it was imported: name the error and its line there."""
    line = ""
    if path is not None:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if Path(f.filename).resolve() == path.resolve()
        ]
        if frames:
            line = f" (at {path}:{frames[-1].lineno})"
    return UsageError(f"importing {where} failed{line}: {type(exc).__name__}: {exc}")


def _execute(where: str) -> Any:
    """Import ``where`` (a .py path or a module name) as the user's code."""
    path = Path(where) if where.endswith(".py") else None
    try:
        if path is None:
            return importlib.import_module(where)
        if not path.is_file():
            raise UsageError(f"no such file: {where}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot load {where}")
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)  # dataclasses and pickling look modules up
        spec.loader.exec_module(module)
        return module
    except (TilecError, KeyboardInterrupt):
        raise
    except SyntaxError as exc:
        raise _syntax_error(exc, where) from None
    except ModuleNotFoundError as exc:
        if path is None and exc.name == where.split(".")[0]:
            raise UsageError(f"no module named {where!r} (give a PATH.py:NAME instead?)") from None
        raise _import_error(exc, where, path) from None
    except Exception as exc:  # the user's module failed at import time: report, not crash
        raise _import_error(exc, where, path) from None


def load_kernel(ref: str) -> Any:
    """The object ``NAME`` of ``PATH.py:NAME`` or ``package.module:NAME``."""
    where, sep, name = ref.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"kernel must be PATH.py:NAME or module:NAME, got {ref!r}")
    module = _execute(where)
    try:
        kernel = getattr(module, name)
    except AttributeError:
        raise UsageError(f"{where} has no attribute {name!r}") from None
    while not getattr(kernel, "__tilec_jit__", False) and hasattr(kernel, "fn"):
        kernel = kernel.fn  # autotune / heuristics wrappers
    return kernel


def cuda_targets() -> list[str]:
    """Every ``cuda:sm_XX`` name the support table accepts for a supported GPU."""
    return [
        f"cuda:{name}"
        for arch in load_policy().architectures
        if arch.level is not Level.UNSUPPORTED
        for name, _ in arch.targets()
    ]


def choose_target(text: str) -> Any:
    """The Target for ``--target``, or a UsageError listing the valid ones / the remedy."""
    kind, _, arch = text.partition(":")
    if kind == "cuda" and arch and f"cuda:{arch}" not in cuda_targets():
        raise UsageError(
            f"unknown CUDA target {text!r}; valid targets: {', '.join(cuda_targets())}"
        )
    try:
        return parse_target(text)
    except TilecError:
        raise
    except Exception as exc:  # ``cuda`` asks this machine's GPU: no driver bindings, no GPU
        raise UsageError(
            f"--target {text} compiles for this machine's GPU, which tilec cannot query here "
            f"({type(exc).__name__}: {exc}). Name an architecture to compile offline, e.g. "
            f"--target cuda:sm_90a; to run on a GPU install the CUDA extra: {CUDA_EXTRA}; "
            "`tilec doctor` checks the machine"
        ) from None


def _missing_stage(compiled: Any, stage: str) -> UsageError:
    have = ", ".join(sorted(compiled.asm))
    kind = compiled.metadata.target.kind
    message = f"the {kind} target produces {have}, not {stage}"
    if kind == "cuda" and stage == "cubin":
        message += (
            ": no PTX assembler was found (nvJitLink or ptxas). Install the CUDA extra: "
            f"{CUDA_EXTRA}, or point TILEC_PTXAS_PATH at a ptxas; `tilec doctor` shows what "
            "it finds"
        )
    return UsageError(message)


def main(ns: argparse.Namespace) -> int:
    stage = ns.stage.lower()
    if stage not in _STAGES:
        raise UsageError(f"unknown stage {ns.stage!r}; choose from {', '.join(_STAGES)}")
    target = choose_target(ns.target)
    kernel = load_kernel(ns.kernel)
    compiled = compile_kernel(kernel, ns.signature, target=target, num_warps=ns.num_warps)
    if stage == "asm" and stage not in compiled.asm:  # the CPU backend makes it on request
        assembly = getattr(registry.get(compiled.metadata.target.kind).compiler, "assembly", None)
        if assembly is not None:
            compiled.asm[stage] = assembly(compiled)
    if stage not in compiled.asm:
        raise _missing_stage(compiled, stage)
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
