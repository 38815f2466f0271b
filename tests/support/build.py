"""Build tile IR for a test kernel from a compact signature: ``build(fn, "*fp32", "i32", 64)``."""

from __future__ import annotations

from typing import Any

from tilec.frontend import build_module
from tilec.ir import types as T
from tilec.ir.argspec import ArgKind, ArgSpec, constexpr_arg, pointer_arg, scalar_arg
from tilec.ir.ops import ModuleOp
from tilec.ir.printer import print_ir


def spec(name: str, sig: Any) -> ArgSpec:
    """``"*fp32"`` → pointer, ``"i32"`` → scalar (``"i32:16"``: divisible by 16, as the runtime
    specializes it), None → None, anything else → constexpr."""
    if sig is None:
        return ArgSpec(name, ArgKind.NONE)
    if isinstance(sig, str) and sig.startswith("*"):
        return pointer_arg(name, T.BY_NAME[sig[1:]])
    if isinstance(sig, str) and sig.removesuffix(":16") in T.BY_NAME:
        return scalar_arg(name, T.BY_NAME[sig.removesuffix(":16")], sig.endswith(":16"))
    return constexpr_arg(name, sig)


def build(fn: Any, *sigs: Any) -> ModuleOp:
    import inspect

    names = list(inspect.signature(fn).parameters)
    return build_module(fn, [spec(n, s) for n, s in zip(names, sigs)])


def ir_text(fn: Any, *sigs: Any) -> str:
    return print_ir(build(fn, *sigs))


def op_names(fn: Any, *sigs: Any) -> list[str]:
    return [op.name for op in build(fn, *sigs).walk()]
