"""Runs one case: writes the kernel to a file (tilec compiles kernels from their source file),
launches it on the CPU backend (or CUDA and CPU), and compares the whole output buffer with the
reference lane by lane. Never raises for a wrong answer: returns an ``Outcome``."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import data
from .dtypes import BF16, DType
from .numerics import from_storage, same_bits, to_storage, ulps
from .program import Case, numel, walk
from .reference import Expect, expected_output
from .render import source

POISON = {1: 0xA5, 8: 0xA5, 16: 0xA5A5, 32: 0xA5A5A5A5, 64: 0xA5A5A5A5A5A5A5A5}


@dataclass
class Outcome:
    status: str  # "ok", "mismatch", "error" (a TilecError), "crash" (any other exception)
    detail: str = ""
    bad_lanes: list[int] = field(default_factory=list)
    compared: int = 0
    case: Case | None = None  # the data variant that failed


@dataclass
class Launch:
    """Everything one launch needs, as NumPy arrays (the reproducer prints these)."""

    inputs: list[np.ndarray]  # reference values
    initial: np.ndarray  # the output buffer before the launch (reference values)


def make_launch(case: Case) -> Launch:
    rng = np.random.default_rng(case.data_seed)
    k = case.kernel
    inputs = [data.values(rng, x.dtype, k.grid * numel(x.shape), case.special) for x in k.inputs]
    size = numel(k.root.shape) * (k.grid if k.store == "store" else 1 + k.returns_old)
    t = k.out_dtype
    if k.store != "store":
        initial = data.ordinary(rng, t, size)
    elif any(x.aliases_out for x in k.inputs):  # read before written: data, not poison
        initial = data.values(rng, t, size, case.special)
    else:
        initial = from_storage(np.full(size, POISON[t.bits], dtype=f"u{max(t.bits, 8) // 8}")
                               .view(t.np_storage), t)  # fmt: skip
    # an input read from the output buffer holds what the output holds before the launch
    inputs = [initial[: len(v)].copy() if x.aliases_out else v for v, x in zip(inputs, k.inputs)]
    return Launch(inputs, initial)


def buffer(values: np.ndarray, t: DType, device: str = "cpu"):  # array or tensor
    raw = to_storage(values, t).copy()
    if t == BF16 or device != "cpu":
        import torch

        tensor = torch.from_numpy(raw.view(np.int16) if t == BF16 else raw)
        tensor = tensor.view(torch.bfloat16) if t == BF16 else tensor
        return tensor if device == "cpu" else tensor.to(device)
    return raw


def read_back(buf, t: DType) -> np.ndarray:
    if isinstance(buf, np.ndarray):
        return from_storage(buf, t)
    import torch

    raw = buf.detach().cpu()
    raw = raw.view(torch.int16) if t == BF16 else raw
    return from_storage(raw.numpy().view(np.dtype(t.np_storage)), t)


_MODULES: dict[str, object] = {}


def load_kernel(text: str, folder: Path):  # a tilec JITFunction
    name = "tilec_fuzz_" + hashlib.sha1(text.encode()).hexdigest()[:16]
    if name in _MODULES:
        return _MODULES[name].kernel  # type: ignore[attr-defined]
    path = folder / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _MODULES[name] = module
    return module.kernel  # type: ignore[attr-defined]


def launch(case: Case, launch_data: Launch, folder: Path, device: str = "cpu") -> np.ndarray:
    k = case.kernel
    kernel = load_kernel(source(k), folder)
    ins = [buffer(v, x.dtype, device) for v, x in zip(launch_data.inputs, k.inputs)]
    out = buffer(launch_data.initial, k.out_dtype, device)
    scalars = [v for _, _, v in k.scalars]
    kernel[k.launch_grid](*ins, out, *case.bounds, *scalars, **dict(k.constexprs))
    return read_back(out, k.out_dtype)


def compare(got: np.ndarray, want: Expect, t: DType) -> tuple[np.ndarray, int]:
    """The mismatching lane indices and how many lanes were compared."""
    live = ~want.undefined
    good = same_bits(got, want.values, t)
    if want.ulps and t.is_float:
        good |= ulps(got, want.values, t) <= want.ulps
    if want.atol is not None and t.is_float:
        with np.errstate(invalid="ignore"):
            good |= np.abs(got.astype(np.float64) - want.values.astype(np.float64)) <= want.atol
    return np.flatnonzero(live & ~good), int(live.sum())


def consistent(case: Case) -> bool:
    """Every operand broadcasts to its user's shape (a guard against generator bugs)."""
    for n in walk(case.kernel.root):
        if n.op in ("bin", "cmp", "where", "minmax"):
            for a in n.args:
                shape = (1,) * (len(n.shape) - len(a.shape)) + a.shape
                if len(a.shape) > len(n.shape) or any(
                    p not in (1, q) for p, q in zip(shape, n.shape)
                ):
                    return False
    return True


def variants(case: Case) -> list[Case]:
    """The case with its own data, then with other data of other edge rates: a compile costs
    far more than a launch, so each kernel runs on three inputs."""
    return [case] + [
        replace(case, data_seed=case.data_seed + k, special=(case.special + k) % 4) for k in (1, 2)
    ]


def run_case(case: Case, folder: Path, pending: frozenset[str] = frozenset()) -> Outcome:
    """The first failure over the case's data variants (``Outcome.case`` is the one that failed)."""
    if not consistent(case):
        return Outcome("reference-error", "the generator built operands of mismatched shapes")
    compared = 0
    for variant in variants(case):
        outcome = run_once(variant, folder, pending)
        if outcome.status != "ok":
            outcome.case = variant
            return outcome
        compared += outcome.compared
    return Outcome("ok", compared=compared)


def run_once(case: Case, folder: Path, pending: frozenset[str] = frozenset()) -> Outcome:
    from tilec.errors import TilecError

    try:
        data_ = make_launch(case)
        got = launch(case, data_, folder)
    except TilecError as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    except Exception as exc:  # any other exception is a tilec bug to report
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return Outcome("crash", tb[:300])
    want = expected_output(case, data_.inputs, data_.initial, pending)
    bad, compared = compare(got, want, case.kernel.out_dtype)
    if len(bad):
        lanes = ", ".join(f"[{i}] got {got[i]!r} want {want.values[i]!r}" for i in bad[:4])
        return Outcome("mismatch", f"{len(bad)} lanes: {lanes}", [int(i) for i in bad], compared)
    return Outcome("ok", compared=compared)
