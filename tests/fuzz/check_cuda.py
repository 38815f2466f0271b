"""CUDA against the CPU backend: the same case launched on both (CUDA buffers are torch CUDA
tensors), the CPU checked against the reference first, then CUDA against the CPU bit for bit on
every defined lane (approximate roots: within twice the reference's bound, plus what
Triton's fast fp32 exp may lose, ``Expect.gpu_atol``)."""

from __future__ import annotations

import traceback
from pathlib import Path

from .check import Outcome, compare, consistent, launch, make_launch
from .program import Case
from .reference import Expect, expected_output


def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def _in_place(case: Case) -> bool:
    """A kernel reading its output buffer: tile semantics (every load before a store) hold on
    the CPU, but on a GPU the threads loading and storing one address may differ, with no
    barrier between them; such kernels are checked on the CPU only."""
    return any(x.aliases_out for x in case.kernel.inputs)


def run_pair(case: Case, folder: Path, pending: frozenset[str] = frozenset()) -> Outcome:
    from tilec.errors import TilecError

    if not consistent(case):
        return Outcome("reference-error", "the generator built operands of mismatched shapes")
    t = case.kernel.out_dtype
    data = make_launch(case)
    try:
        cpu = launch(case, data, folder, "cpu")
        gpu = launch(case, data, folder, "cuda") if not _in_place(case) else cpu
    except TilecError as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    except Exception as exc:  # any other exception is a tilec bug to report
        return Outcome("crash", traceback.format_exception_only(type(exc), exc)[-1][:300])
    want = expected_output(case, data.inputs, data.initial, pending)
    bad, compared = compare(cpu, want, t)
    if len(bad):
        lanes = ", ".join(f"[{i}] cpu {cpu[i]!r} want {want.values[i]!r}" for i in bad[:4])
        return Outcome("mismatch", f"cpu vs reference, {len(bad)} lanes: {lanes}", list(bad))
    if _in_place(case):
        return Outcome("ok", compared=compared)
    atol = want.gpu_atol if want.atol is None else 2 * want.atol + want.gpu_atol
    bad, compared = compare(gpu, Expect(cpu, want.undefined, 2 * want.ulps, atol), t)
    if len(bad):
        lanes = ", ".join(f"[{i}] cuda {gpu[i]!r} cpu {cpu[i]!r}" for i in bad[:4])
        return Outcome("mismatch", f"cuda vs cpu, {len(bad)} lanes: {lanes}", list(bad), compared)
    return Outcome("ok", compared=compared)
