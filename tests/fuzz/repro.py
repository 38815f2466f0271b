"""A failing case as a stand-alone script: the kernel source, the input bytes, the launch, and
the reference's expected values for the lanes that differ."""

from __future__ import annotations

import numpy as np

from .check import make_launch
from .dtypes import BF16, DType
from .numerics import to_storage
from .program import Case
from .reference import expected_output
from .render import source


def _array(values: np.ndarray, t: DType) -> str:
    raw = to_storage(values, t)
    if t.is_float:
        bits = raw.view(f"u{raw.itemsize}")
        return f"np.array({bits.tolist()}, dtype=np.uint{8 * raw.itemsize})" + (
            "" if t == BF16 else f".view(np.{t.np_storage})"
        )
    return f"np.array({raw.tolist()}, dtype=np.{t.np_storage})"


def _buffer(name: str, t: DType, values: np.ndarray) -> list[str]:
    """``name``: what the kernel gets; ``name_np``: the same bytes as a NumPy array."""
    lines = [f"{name}_np = {_array(values, t)}  # {t.name}"]
    if t == BF16:  # NumPy has no bf16: a torch tensor over the same bytes
        return [*lines, f"{name} = torch.from_numpy({name}_np.view(np.int16)).view(torch.bfloat16)"]
    return [*lines, f"{name} = {name}_np"]


def _as_float(expr: str, t: DType) -> str:
    if t == BF16:
        return f"({expr}.astype(np.uint32) << 16).view(np.float32)"
    return f"{expr}.view(np.{t.np_storage})" if t.is_float else expr


def script(case: Case, bad_lanes: list[int] | None = None) -> str:
    k = case.kernel
    t = k.out_dtype
    launch = make_launch(case)
    want = expected_output(case, launch.inputs, launch.initial)
    lines = ['"""A tilec fuzz case (tests/fuzz) as a script: python this_file.py"""', "",
             "import numpy as np"]  # fmt: skip
    if any(x.dtype == BF16 for x in k.inputs) or t == BF16:
        lines.append("import torch")
    lines += [source(k), ""]
    args = []
    for i, (x, v) in enumerate(zip(k.inputs, launch.inputs)):
        lines += _buffer(f"in{i}", x.dtype, v)
        args.append(f"in{i}")
    lines += _buffer("out", t, launch.initial)
    args.append("out")
    args += [str(n) for n in case.bounds] + [repr(v) for _, _, v in k.scalars]
    args += [f"{name}={v!r}" for name, v in k.constexprs]
    lines.append(f"kernel[{k.launch_grid}]({', '.join(args)})")
    lanes = (bad_lanes or [int(i) for i in np.flatnonzero(~want.undefined)])[:16]
    raw = to_storage(want.values, t)
    unsigned = f"np.uint{8 * raw.itemsize}" if t.is_float else f"np.{raw.dtype}"
    expect = raw.view(unsigned.replace("np.", "")) if t.is_float else raw
    lines += [
        f"lanes = {lanes}",
        f"want = {_as_float(f'np.array({expect[lanes].tolist()}, dtype={unsigned})', t)}",
        f"got = {_as_float(f'out_np.view({unsigned})[lanes]', t)}",
        "for lane, g, w in zip(lanes, got, want):",
        "    print(f'out[{lane}]: got {g!r} expected {w!r}')",
    ]
    if want.ulps or want.atol is not None:
        lines.append(f"# approximate root: {want.ulps} ulps (math) or a float-sum bound is allowed")
    elif t.is_float:
        lines.append("same = (np.isnan(got) & np.isnan(want)) | ((got == want) & "
                     "(np.signbit(got) == np.signbit(want)))")  # fmt: skip
        lines.append("assert same.all(), 'tilec differs from the reference'")
    else:
        lines.append("assert (got == want).all(), 'tilec differs from the reference'")
    return "\n".join(lines) + "\n"
