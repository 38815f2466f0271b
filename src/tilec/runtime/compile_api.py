"""``tilec.compile``: compile a @jit kernel ahead of time from a textual signature.

A signature lists the kernel's parameters in order, Triton style: ``*fp32`` (a pointer),
``*fp32:16`` (16-byte aligned), ``i32`` / ``i32:16`` / ``i64`` / ``fp32`` (scalars), and for
constexpr parameters a literal value or ``NAME=VALUE`` (``"*fp32:16, *fp32:16, i32, BLOCK=1024"``).
Targets are a backend's name (this machine) or ``<backend>:<arch>`` names.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Mapping
from typing import Any

from ..backends import registry
from ..backends.artifacts import CompiledKernel
from ..backends.target import Target
from ..errors import UsageError
from ..ir import types as ir
from ..ir.argspec import ArgKind, ArgSpec, constexpr_arg
from . import compiler
from .launch_options import check_for_backend, compile_options


def _literal(text: str) -> Any:
    name = text.strip().removeprefix("tl.")
    by_language_name = {v: ir.BY_NAME[k] for k, v in ir.LANGUAGE_NAMES.items() if k in ir.BY_NAME}
    dtype = ir.BY_NAME.get(name) or by_language_name.get(name)
    if dtype is not None:
        return dtype
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError):
        raise UsageError(f"constexpr value {text!r} is not a literal or a dtype name") from None


def _type_spec(name: str, text: str) -> ArgSpec:
    body, _, fact = text.strip().partition(":")
    pointer = body.startswith("*")
    element = ir.BY_NAME.get(body.lstrip("*"))
    if element is None or fact not in ("", "16", "1") or (pointer and fact == "1"):
        raise UsageError(
            f"parameter {name!r}: bad type {text!r} (expected e.g. *fp32, *fp16:16, i32, i32:16, "
            f"fp32; element types: {', '.join(ir.BY_NAME)})"
        )
    if pointer:
        return ArgSpec(name, ArgKind.POINTER, ir.PointerType(element), divisible_by_16=fact == "16")
    return ArgSpec(
        name, ArgKind.SCALAR, element, divisible_by_16=fact == "16", equals_one=fact == "1"
    )


def parse_signature(kernel: Any, signature: str | Mapping[str, str]) -> tuple[ArgSpec, ...]:
    """One ArgSpec per parameter of ``kernel`` (a JITFunction) from a signature string or dict."""
    params = kernel.params
    if isinstance(signature, str):
        entries = [e.strip() for e in signature.split(",") if e.strip()]
        named = {e.split("=", 1)[0].strip(): e.split("=", 1)[1] for e in entries if "=" in e}
        positional = [e for e in entries if "=" not in e]
    elif isinstance(signature, Mapping):
        named, positional = {k: str(v) for k, v in signature.items()}, []
    else:
        raise UsageError(
            "signature must be a string like '*fp32, i32, BLOCK=16' or a dict "
            f"{{name: type}}, got {type(signature).__name__}"
        )
    unknown = set(named) - {p.name for p in params}
    if unknown:
        raise UsageError(f"signature names unknown parameters: {', '.join(sorted(unknown))}")
    specs = []
    for p in params:
        if p.name in named:
            text = named[p.name]
        elif positional:
            text = positional.pop(0)
        elif p.constexpr and p.default is not inspect.Parameter.empty:
            specs.append(constexpr_arg(p.name, p.default))
            continue
        else:
            raise UsageError(f"the signature gives no type or value for parameter {p.name!r}")
        specs.append(
            constexpr_arg(p.name, _literal(text)) if p.constexpr else _type_spec(p.name, text)
        )
    if positional:
        raise UsageError(
            f"the signature has {len(positional)} entries more than the kernel's parameters"
        )
    return tuple(specs)


def parse_target(text: str | Target | None) -> Target:
    """``<backend>`` (this machine's device) or ``<backend>:<arch>`` (``cuda:sm_90a``: any GPU of
    that architecture, offline); this host by default."""
    if isinstance(text, Target):
        return text
    kind, _, arch = (text or registry.HOST).partition(":")
    if kind not in registry.names():
        known = ", ".join(registry.names())
        raise UsageError(f"unknown target {text!r}: use <backend> or <backend>:<arch> ({known})")
    driver = registry.get(kind).driver
    return driver.target_for(arch) if arch else driver.current_target()


def compile(  # Triton's name
    kernel: Any,
    signature: str | Mapping[str, str],
    *,
    target: str | Target | None = None,
    **options: Any,
) -> CompiledKernel:
    """Compile ``kernel`` for ``signature`` on ``target`` (default: this host's CPU)."""
    if not getattr(kernel, "__tilec_jit__", False):
        raise UsageError(f"tilec.compile expects a @tilec.jit kernel, got {type(kernel).__name__}")
    specs = parse_signature(kernel, signature)
    chosen, opts = parse_target(target), compile_options(options, kernel.debug)
    check_for_backend(opts, chosen.kind)
    return compiler.compile(kernel, specs, chosen, opts)
