"""Python function → tile IR: parse, check, then generate a one-kernel ModuleOp.

``build_module(fn, specs)`` is the frontend's whole interface: constexpr, None and equal-to-1
parameters are folded into the code; the kernel's FuncOp takes the runtime parameters only.
"""

from .kernel import build_module

__all__ = ["build_module"]
