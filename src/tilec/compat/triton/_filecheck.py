"""``triton._filecheck``: Triton's frontend test helpers over tilec's frontend.

``run_parser(kernel, args, kwargs)`` specializes a kernel on example arguments, as a launch
would, and runs the frontend on it: errors are the same compile errors a launch raises, and the
result is tilec's tile IR module. FileCheck tests match Triton's MLIR text (TTIR), which tilec
does not produce: ``run_filecheck``, ``run_filecheck_test`` and the tests ``filecheck_test``
makes raise UnsupportedFeature saying so.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import UnsupportedFeature, UsageError
from ...ir.argspec import ArgSpec, constexpr_arg
from ...runtime.describers import describe
from ...runtime.specialize import spec_from_key

# launch options Triton's run_parser accepts among the keyword arguments (not parameters)
_OPTIONS = frozenset({"sanitize_overflow", "num_warps", "num_stages", "num_ctas", "debug"})


def _spec(name: str, value: Any, constexpr: bool) -> ArgSpec:
    if constexpr or (callable(value) and not hasattr(value, "data_ptr")):
        return constexpr_arg(name, value)  # functions are compile-time arguments, as in Triton
    key, _ = describe(value)
    return spec_from_key(name, key, False)


def run_parser(
    kernel_fn: Any, args: tuple[Any, ...] = (), kwargs: Mapping[str, Any] | None = None,
    target: Any = None,
) -> Any:  # fmt: skip
    """The tile IR of ``kernel_fn`` specialized for ``args``/``kwargs`` (compile errors raised)."""
    from ...frontend.kernel import build_module

    if not getattr(kernel_fn, "__tilec_jit__", False):
        raise UsageError(f"run_parser expects a @jit kernel, got {type(kernel_fn).__name__}")
    given = {k: v for k, v in (kwargs or {}).items() if k not in _OPTIONS}
    try:
        bound = inspect.signature(kernel_fn.fn).bind(*args, **given)
    except TypeError as e:
        raise UsageError(f"{kernel_fn.__name__}: {e}") from None
    bound.apply_defaults()
    specs = [_spec(p.name, bound.arguments[p.name], p.constexpr) for p in kernel_fn.params]
    return build_module(kernel_fn.fn, specs)


def _no_filecheck() -> UnsupportedFeature:
    return UnsupportedFeature(
        "FileCheck tests match Triton's MLIR (TTIR) text; tilec compiles to its own tile IR"
    )


def run_filecheck(name: str, module_str: str, check_template: str) -> None:
    raise _no_filecheck()


def run_filecheck_test(kernel_fn: Any) -> None:
    raise _no_filecheck()


def filecheck_test(fn: Any) -> Callable[[], None]:
    """A test that FileChecks ``fn``'s TTIR in Triton: here it raises UnsupportedFeature."""

    @functools.wraps(fn)
    def test_fn() -> None:
        raise _no_filecheck()

    return test_fn
