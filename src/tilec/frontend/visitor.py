"""What control flow and attribute access call back into while a function body is generated.

codegen.FunctionCodegen is the one implementation. control_flow.py and operators.py take a
Visitor, so they depend on this interface instead of the code generator that calls them; Unit
is the state a kernel shares with every function inlined into it.
"""

from __future__ import annotations

import ast
from typing import Any, Protocol

from ..ir.builder import Builder
from ..ir.core import Value


class Unit:
    """State shared by a kernel and every function inlined into it."""

    def __init__(self, builder: Builder) -> None:
        self.b = builder
        self.stack: list[Any] = []  # functions being inlined, to reject recursion
        self.unrolled = 0  # iterations of static loops generated so far (bounded)
        self.mapping = 0  # depth of tl.map_elementwise bodies being generated
        # tl.const pointers bound or merged (const_pointers.py)
        self.const_pointers: set[Value] = set()


class Visitor(Protocol):
    """The code generator of one function body (the kernel, or an inlined @jit callee)."""

    unit: Unit
    scope: dict[str, Any]  # name -> Tensor or compile-time value
    returned: bool  # a return was generated: the rest of the block is dead

    @property
    def b(self) -> Builder: ...

    def expr(self, node: ast.expr) -> Any: ...

    def visit_body(self, stmts: list[ast.stmt]) -> None: ...
