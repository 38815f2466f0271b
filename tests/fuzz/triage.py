"""Names a failure: a signature to deduplicate by (the shrunk kernel's operations and types, or
the error's message) and labels for the semantics areas the failing kernel touches."""

from __future__ import annotations

import re

from . import dtypes as D
from .program import Case, Node, walk

LEAVES = ("load", "lit", "const", "scalar", "pid", "arange", "full")


def _label(n: Node) -> str:
    head = n.attr[0] if n.op in ("bin", "cmp", "unary", "reduce", "scan", "math", "minmax") else ""
    if n.op == "cast":
        head = f"{n.args[0].dtype.name}->" + ("bits:" if n.attr[1] else "")
    return f"{n.op}:{head}:{n.dtype.name}" if head else f"{n.op}:{n.dtype.name}"


def signature(case: Case, status: str, detail: str) -> str:
    if status != "mismatch":
        return f"{status}: " + re.sub(r"\d+", "N", detail)[:160]
    k = case.kernel
    ops = sorted({_label(n) for n in walk(k.root) if n.op not in LEAVES})
    loads = sorted({f"load:{x.dtype.name}" + (":other" if x.masked and x.other is not None
                    else "") for x in k.inputs})  # fmt: skip
    return f"mismatch: {' '.join(ops + loads)} -> {k.store}:{k.out_dtype.name}"


def labels(case: Case) -> list[str]:
    """Areas with a semantics fix under way that this kernel touches."""
    k = case.kernel
    found = set()
    if any(x.masked and x.other is not None for x in k.inputs):
        found.add("masked-other")
    for n in walk(k.root):
        src = n.args[0].dtype if n.args else None
        if n.op == "reduce" and n.attr[0] in ("argmax", "argmin") and src and src.is_float:
            found.add("argmax-nan")
        if n.op == "unary" and n.attr[0] == "neg" and n.dtype.is_float:
            found.add("neg-zero")
        if n.op == "cast" and src == D.F64 and n.dtype in (D.F16, D.BF16):
            found.add("f64-to-f16")
        if n.op in ("minmax",) and n.dtype.is_float:
            found.add("nan-minmax")
        if (
            n.op in ("reduce", "scan")
            and n.attr[0] in ("max", "min", "scan_max")
            and n.dtype.is_float
        ):
            found.add("nan-minmax")
        if n.op == "cast" and src and src.is_float and n.dtype.is_int and not n.attr[1]:
            found.add("float-to-int")
        if n.op == "math" and n.attr[0] in ("sin", "cos") and n.dtype == D.F32:
            found.add("sincos-range")
        if n.op == "bin" and n.attr[0] in ("//", "%", "<<", ">>") and n.dtype.is_int:
            found.add("int-div-shift")
    if k.root.dtype == D.F64 and k.out_dtype in (D.F16, D.BF16):
        found.add("f64-to-f16")
    return sorted(found)
