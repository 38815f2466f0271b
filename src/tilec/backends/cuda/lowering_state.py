"""What the pieces the Lowering calls while it runs use of it.

lowering.Lowering is the one implementation. Layout conversion (conversion.py),
rematerialization (rematerialize.py) and the software-pipelining planner (pipeline.py,
pipeline_operands.py) take a LoweringState, so they depend on this interface instead of the
Lowering that imports them; the rule modules, which nothing in the Lowering imports, take the
Lowering itself.
"""

from __future__ import annotations

from typing import Any, Protocol

from llvmlite import ir

from ...ir.core import Op, Value
from .axis_info import AxisAnalysis
from .dot_plans import DotPlans
from .layout import Layout
from .layout_assign import LayoutPlan
from .target_info import TargetInfo
from .thread_index import Index, Terms
from .tile import Key, Lowered


class LoweringState(Protocol):
    """The lowering of one kernel: builders, launch options, plans and the value environment."""

    b: ir.IRBuilder  # the current position
    prologue: ir.IRBuilder  # the entry block: values computed once per thread
    num_warps: int
    target: TargetInfo  # what the GPU's own calls are (warp size, shared memory, barriers)
    arch: int  # the compute capability as a number (80, 90)
    num_stages: int | None  # the launch's pipelining depth; None: no pipelining
    private_stages: bool  # loads other than dot operands may be pipelined too
    wgmma: bool  # tensor-core dots may run on wgmma
    dot_plans: DotPlans  # each dot's tensor-core plan
    max_shared: int  # bytes of shared memory a block may use
    axis: AxisAnalysis
    plan: LayoutPlan
    env: dict[Value, Lowered]

    def lower_op(self, op: Op) -> None: ...

    def value(self, v: Value, layout: Layout | None) -> Lowered: ...

    def want(self, v: Value) -> Layout: ...

    def keys(self, layout: Layout, shape: tuple[int, ...]) -> list[Key]: ...

    def coord(self, layout: Layout, shape: tuple[int, ...], key: Key) -> list[ir.Value]: ...

    def terms_value(self, terms: Terms) -> ir.Value | None: ...

    def index_value(self, idx: Index, builder: ir.IRBuilder | None = None) -> ir.Value: ...

    def linear(self, coords: list[Any], shape: tuple[int, ...]) -> ir.Value | Index: ...

    def smem(self, nbytes: int, align: int = 16) -> ir.Value: ...

    def reserve_shared(self, nbytes: int) -> None: ...

    def barrier(self) -> None: ...
