"""``tl.range`` and ``tl.static_range``: the loops a kernel's ``for`` may iterate, as the
frontend compiles them (control_flow): a run-time loop with hints, or one unrolled at compile
time."""

from __future__ import annotations

import builtins
from typing import Any

from ..errors import ConstexprError


class range:
    """``for i in tl.range(start, end, step, num_stages=..., ...)``: a run-time loop with hints."""

    def __init__(
        self,
        arg1: Any,
        arg2: Any = None,
        step: Any = None,
        num_stages: Any = None,
        loop_unroll_factor: Any = None,
        disallow_acc_multi_buffer: Any = False,
        flatten: Any = False,
        warp_specialize: Any = False,
        disable_licm: Any = False,
    ) -> None:
        self.start: Any
        self.end: Any
        self.start, self.end = (0, arg1) if arg2 is None else (arg1, arg2)
        self.step = 1 if step is None else step
        self.num_stages = num_stages
        self.loop_unroll_factor = loop_unroll_factor
        self.flatten = bool(flatten)
        self.warp_specialize = bool(warp_specialize)

    def attributes(self) -> dict[str, Any]:
        """The ForOp attributes this loop asks for."""
        return {
            "num_stages": self.num_stages,
            "loop_unroll_factor": self.loop_unroll_factor,
            "flatten": self.flatten,
            "warp_specialize": self.warp_specialize,
        }


class static_range:
    """``for i in tl.static_range(...)``: unrolled at compile time; bounds must be constexpr."""

    def __init__(self, arg1: Any, arg2: Any = None, step: Any = None) -> None:
        bounds = (0, arg1) if arg2 is None else (arg1, arg2)
        self.start: Any = bounds[0]
        self.end: Any = bounds[1]
        self.step = 1 if step is None else step
        for v in (self.start, self.end, self.step):
            if not isinstance(v, int) or isinstance(v, bool):
                raise ConstexprError("tl.static_range bounds must be compile-time ints")

    def values(self) -> builtins.range:
        """The iteration values, lazily (so a huge count can be refused before it is built)."""
        return builtins.range(self.start, self.end, self.step)
