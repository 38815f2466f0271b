"""Random kernels for the no-abort fuzz test: random dtypes, shapes, expressions over
arithmetic, bitwise, comparison, math and cast operators, reductions, scans, dot and atomics.

Most are type-correct; the rest must fail with a TilecError. ``write_module(seed, count, path)``
writes them as a Python module (kernels need source files) with a ``SIGNATURES`` table.
"""

from __future__ import annotations

import random
from pathlib import Path

POINTER = {
    "tl.float16": "*fp16", "tl.bfloat16": "*bf16", "tl.float32": "*fp32", "tl.float64": "*fp64",
    "tl.int1": "*i1", "tl.int8": "*i8", "tl.int16": "*i16", "tl.int32": "*i32", "tl.int64": "*i64",
    "tl.uint8": "*u8", "tl.uint32": "*u32", "tl.uint64": "*u64",
}  # fmt: skip
DTYPES = sorted(POINTER)
BINARY = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", "==", ">="]
UNARY = [
    "tl.exp({0})", "tl.log({0})", "tl.sqrt({0})", "tl.abs({0})", "-({0})", "tl.sin({0})",
    "tl.exp2({0})", "tl.rsqrt({0})", "tl.floor({0})", "tl.erf({0})", "tl.sigmoid({0})",
    "libdevice.tanh({0})", "libdevice.pow({0}, {0})", "tl.fma({0}, {0}, {0})",
    "tl.maximum({0}, {0})", "tl.minimum({0}, {0}, propagate_nan=tl.PropagateNan.ALL)",
    "~({0})", "tl.clamp({0}, {0}, {0})", "libdevice.erfinv({0})", "libdevice.rint({0})",
    "tl.div_rn({0}, {0})", "libdevice.isnan({0})", "tl.umulhi({0}, {0})",
]  # fmt: skip
REDUCTIONS = [
    "tl.sum({0}, axis={1})", "tl.max({0}, axis={1})", "tl.argmin({0}, axis={1})",
    "tl.xor_sum({0}, axis={1})", "tl.cumsum({0}, axis={1})", "tl.cumprod({0}, axis={1})",
    "tl.min({0}, axis={1}, keep_dims=True)",
]  # fmt: skip
ATOMICS = ["tl.atomic_add", "tl.atomic_max", "tl.atomic_min", "tl.atomic_xchg", "tl.atomic_and"]
SHAPES = [(16,), (64,), (1,), (16, 16), (2, 32), (4, 4, 4)]


def _expr(r: random.Random, depth: int) -> str:
    if depth <= 0 or r.random() < 0.25:
        return r.choice(["x", "y", "z", "n", "1.5", "3"])
    pick = r.random()
    if pick < 0.45:
        return f"({_expr(r, depth - 1)} {r.choice(BINARY)} {_expr(r, depth - 1)})"
    if pick < 0.75:
        return r.choice(UNARY).format(_expr(r, depth - 1))
    if pick < 0.9:
        return f"({_expr(r, depth - 1)}).to({r.choice(DTYPES)})"
    a, b, c = (_expr(r, depth - 1) for _ in range(3))
    return f"tl.where({a} > 0, {b}, {c})"


def _offsets(shape: tuple[int, ...]) -> str:
    if len(shape) == 1:
        return f"tl.arange(0, {shape[0]})"
    if len(shape) == 2:
        return f"tl.arange(0, {shape[0]})[:, None] * {shape[1]} + tl.arange(0, {shape[1]})[None, :]"
    a, b, c = (f"tl.arange(0, {d})" for d in shape)
    return f"{a}[:, None, None] * 16 + {b}[None, :, None] * 4 + {c}[None, None, :]"


def _kernel(r: random.Random, index: int) -> tuple[str, str]:
    shape = r.choice(SHAPES)
    types = [r.choice(DTYPES) for _ in range(4)]
    body = [
        f"    offs = {_offsets(shape)}",
        "    m = offs < n",
        "    x = tl.load(a + offs, mask=m, other=0)",
        "    y = tl.load(b + offs, mask=m)",
        "    z = tl.load(c + offs)",
    ]
    e = _expr(r, r.randint(1, 4))
    pick = r.random()
    if pick < 0.3:
        body.append(f"    v = {r.choice(REDUCTIONS).format(e, r.randrange(len(shape)))}")
        body.append("    tl.store(out, tl.sum(tl.ravel(v), 0))")
    elif pick < 0.4 and len(shape) == 2 and shape[0] == shape[1]:
        body.append("    tl.store(out + offs, tl.dot(x, y))")
    elif pick < 0.55:
        body.append(f"    {r.choice(ATOMICS)}(out + offs, {e}, mask=m)")
    else:
        body.append(f"    tl.store(out + offs, {e}, mask=m)")
    source = f"@tilec.jit\ndef k{index}(a, b, c, out, n):\n" + "\n".join(body) + "\n"
    signature = ", ".join([f"{POINTER[t]}:16" for t in types] + ["i32"])
    return source, signature


def write_module(seed: int, count: int, path: Path) -> None:
    r = random.Random(seed)
    parts = [
        "import tilec",
        "import tilec.language as tl",
        "from tilec.language.extra import libdevice",
    ]
    table = []
    for i in range(count):
        source, signature = _kernel(r, i)
        parts.append("\n" + source)
        table.append(f"    'k{i}': {signature!r},")
    parts.append("\nSIGNATURES = {\n" + "\n".join(table) + "\n}\n")
    path.write_text("\n".join(parts))
