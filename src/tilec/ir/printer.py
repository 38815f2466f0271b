"""Text form of tile IR, for dumps, tests and error notes.

%3 = load %2, %1 : tile<1024x*fp32>, tile<1024xi1> -> tile<1024xfp32>
%5 = for %lb to %ub step %s iter(%acc = %4) -> (tile<64xfp32>) { ... }
"""

from __future__ import annotations

from typing import Any

from .core import Block, Op, Value


class _Names:
    def __init__(self) -> None:
        self.names: dict[Value, str] = {}

    def __call__(self, v: Value) -> str:
        name = self.names.get(v)
        if name is None:
            name = (
                f"%{v.name_hint}"
                if v.name_hint and f"%{v.name_hint}" not in self.names.values()
                else f"%{len(self.names)}"
            )
            self.names[v] = name
        return name


def _fmt_attr(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def _print_op(op: Op, names: _Names, indent: int, out: list[str]) -> None:
    pad = "  " * indent
    lhs = ", ".join(names(r) for r in op.results)
    args = ", ".join(names(v) for v in op.operands)
    attrs = op.attributes()
    attr_s = (
        " {" + ", ".join(f"{k} = {_fmt_attr(v)}" for k, v in attrs.items()) + "}" if attrs else ""
    )
    types = ""
    if op.results:
        types = " : " + ", ".join(str(r.type) for r in op.results)
    head = f"{pad}{lhs + ' = ' if lhs else ''}{op.name}{' ' + args if args else ''}{attr_s}{types}"
    if not op.regions:
        out.append(head)
        return
    out.append(head + " {")
    for i, region in enumerate(op.regions):
        if i:
            out.append(f"{pad}}} {{")
        for block in region.blocks:
            _print_block(block, names, indent + 1, out)
    out.append(pad + "}")


def _print_block(block: Block, names: _Names, indent: int, out: list[str]) -> None:
    if block.args:
        params = ", ".join(f"{names(a)}: {a.type}" for a in block.args)
        out.append("  " * (indent - 1) + f"^({params}):")
    for op in block.ops:
        _print_op(op, names, indent, out)


def print_ir(op: Op) -> str:
    """Render ``op`` (usually a ModuleOp or FuncOp) and everything inside it."""
    out: list[str] = []
    _print_op(op, _Names(), 0, out)
    return "\n".join(out) + "\n"
