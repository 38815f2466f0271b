"""Autotuning vocabulary: ``tilec.Config``, ``tilec.heuristics`` and the kernel wrapper base.

``Config`` is one candidate of meta-parameters and launch options; ``Heuristics`` computes
meta-parameters from the arguments; the Autotuner (``tilec.autotune``) lives in autotuner.py.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UsageError


class Config:
    """One candidate: meta-parameters (``kwargs``) plus launch options."""

    def __init__(
        self,
        kwargs: dict[str, Any],
        num_warps: int = 4,
        num_stages: int = 3,
        num_ctas: int = 1,
        maxnreg: int | None = None,
        pre_hook: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict[str, Any]:
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                   "num_ctas": self.num_ctas}  # fmt: skip
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return {**self.kwargs, **options}

    def __str__(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in self.all_kwargs().items())

    def __repr__(self) -> str:
        return f"Config({self})"


def _base_jit(fn: Any) -> Any:
    while not getattr(fn, "__tilec_jit__", False):
        if not hasattr(fn, "fn"):
            raise UsageError(f"{fn!r} is not a @tilec.jit kernel")
        fn = fn.fn
    return fn


class KernelInterface:
    """``kernel[grid](*args, **kwargs)`` for wrappers around a JITFunction."""

    fn: Any
    arg_names: list[str]

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return functools.partial(self.run, grid=grid)

    def warmup(self, *args: Any, grid: Any = (1,), **kwargs: Any) -> Any:
        return self.run(*args, grid=grid, warmup=True, **kwargs)

    def _named(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**dict(zip(self.arg_names, args)), **kwargs}


class Heuristics(KernelInterface):
    """Meta-parameters computed from the other arguments (``@tilec.heuristics``)."""

    def __init__(self, fn: Any, values: dict[str, Callable[[dict[str, Any]], Any]]):
        self.fn = fn
        self.values = values
        self.arg_names = _base_jit(fn).arg_names
        functools.update_wrapper(self, _base_jit(fn).fn)  # type: ignore[arg-type]

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        named = self._named(args, kwargs)
        for name, heuristic in self.values.items():  # each sees the ones before it
            kwargs[name] = named[name] = heuristic(named)
        return self.fn[grid](*args, **kwargs)  # the wrapped kernel's own (native) launch path


def heuristics(values: dict[str, Callable[[dict[str, Any]], Any]]) -> Callable[[Any], Heuristics]:
    """``@tilec.heuristics({"BLOCK": lambda args: ...})`` above ``@tilec.jit``."""
    return lambda fn: Heuristics(fn, values)


def _zero(x: Any) -> None:
    if hasattr(x, "zero_"):
        x.zero_()
    else:
        x[...] = 0


def _snapshot(x: Any) -> Any:
    return x.clone() if hasattr(x, "clone") else x.copy()


def _restore(x: Any, saved: Any) -> None:
    if hasattr(x, "copy_"):
        x.copy_(saved)
    else:
        x[...] = saved
