"""``CompiledKernel.run``: Triton's launcher calling convention over a tilec kernel.

``run(grid0, grid1, grid2, stream, function, metadata, launch_metadata, enter_hook, exit_hook,
*args)`` receives every argument, constexprs included. When torch is imported, a launcher
generated for the compiled specialization takes the fast path for torch tensors: for each array
a type, dtype and device test plus ``data_ptr()`` (and the 16-byte alignment the kernel
assumed), for each number its type, width and the facts compiled in. Any other argument goes
through the checked path (direct_launch.py), which names an argument that does not fit. CPU kernels run on as many threads as torch's intra-op pool
(``torch.get_num_threads()``) unless TILEC_NUM_THREADS chose a number, so tilec's grid threads
and OpenMP's do not compete.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from .... import config
from ....ir import types as ir
from ....ir.argspec import ArgKind, ArgSpec
from ....runtime.direct_launch import DirectLaunch
from ....runtime.dtypes import BY_NAME

_INT_RANGE = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
_FLOATS = ("fp32", "fp64")


def _condition(i: int, spec: ArgSpec, device: str) -> tuple[list[str], str] | None:
    """The fast path's tests for argument ``i`` and the value it passes; None: no fast path."""
    v = f"v{i}"
    if spec.kind in (ArgKind.CONSTEXPR, ArgKind.NONE):
        return [], v  # compiled in; tilec's launch drops it as Triton's launcher does
    if spec.kind is ArgKind.POINTER:
        tests = [f"type({v}) is _type{i}", f"{v}.dtype is _dtype{i}", f"{v}.is_{device}"]
        if spec.divisible_by_16:
            tests.append(f"not {v}.data_ptr() & 15")
        return tests, f"{v}.data_ptr()"
    t = spec.type
    if not isinstance(t, ir.ScalarType):
        return None
    if t.name in _FLOATS:
        return [f"type({v}) is float"], v
    if t.name not in _INT_RANGE:
        return None
    low, high = _INT_RANGE[t.name]
    tests = [f"type({v}) is int", f"{low} <= {v} <= {high}"]
    if spec.divisible_by_16:
        tests.append(f"not {v} & 15")
    if spec.equals_one:
        tests.append(f"{v} == 1")
    return tests, v


def _fast_source(specs: Sequence[ArgSpec], device: str) -> str | None:
    parts = [_condition(i, s, device) for i, s in enumerate(specs)]
    if any(p is None for p in parts):
        return None
    names = ", ".join(f"v{i}" for i in range(len(specs)))
    tests = " and ".join(t for p in parts if p for t in p[0]) or "True"
    values = ", ".join(p[1] for p in parts if p)
    return "\n".join([
        "def _factory(_checked, _threads, _launch_for):",
        f"    def run(g0, g1, g2, stream, function, metadata, lm, enter, exit_, {names}):",
        "        if enter is not None:",
        "            enter(lm)",
        f"        if {tests}:",
        "            n = _threads()",
        "            launch = _launch_for.get(n) or _launch_for['build'](n)",
        f"            launch((g0, g1, g2), {values})",
        "        else:",
        f"            _checked((g0, g1, g2), ({names}{',' if len(specs) == 1 else ''}))",
        "        if exit_ is not None:",
        "            exit_(lm)",
        "    return run",
    ])  # fmt: skip


def _torch_dtype(torch: Any, element: Any) -> Any:
    """The torch dtype whose tensors the kernel's ``element`` pointers take (None: none)."""
    for name, scalar in BY_NAME.items():
        found = getattr(torch, name, None)
        if scalar is element and isinstance(found, torch.dtype):
            return found
    return None


class Runner:
    """Builds ``run`` for one loaded kernel: the generated fast path when torch is imported,
    else the checked launch alone."""

    def __init__(self, kernel: Any, rebuild: Callable[[int], Any]) -> None:
        self.kernel = kernel
        self.specs: Sequence[ArgSpec] = kernel.params
        self.device = kernel.metadata.target.kind
        self.direct = DirectLaunch(kernel)
        self.rebuild = rebuild  # thread count -> the same code loaded for that many threads
        self._launches: dict[Any, Any] = {"build": self._launch_for}
        self.run: Callable[..., None] = self._generate() or self._checked()

    def _checked(self) -> Callable[..., None]:
        direct = self.direct

        def run(g0: int, g1: int, g2: int, stream: Any, function: Any, metadata: Any,
                lm: Any, enter: Any, exit_: Any, *args: Any) -> None:  # fmt: skip
            if enter is not None:
                enter(lm)
            direct((g0, g1, g2), args)
            if exit_ is not None:
                exit_(lm)

        return run

    def _generate(self) -> Callable[..., None] | None:
        torch = sys.modules.get("torch")
        if torch is None or getattr(self.kernel, "launch_checked", None) is not None:
            return None  # bounds-checked kernels need the argument objects
        source = _fast_source(self.specs, self.device)
        if source is None:
            return None
        scope: dict[str, Any] = {}
        for i, spec in enumerate(self.specs):
            if spec.kind is ArgKind.POINTER:
                assert isinstance(spec.type, ir.PointerType)
                dtype = _torch_dtype(torch, spec.type.element)
                if dtype is None:
                    return None
                scope[f"_type{i}"], scope[f"_dtype{i}"] = torch.Tensor, dtype
        exec(compile(source, f"<tilec triton run {self.kernel.name}>", "exec"), scope)
        run: Any = scope["_factory"](self.direct, _thread_count(self.device), self._launches)
        run.launches = self._launches  # thread count -> launch function (for inspection)
        return run  # type: ignore[no-any-return]

    def _launch_for(self, threads: int) -> Callable[..., None]:
        kernel = self.kernel if threads == 0 else self.rebuild(threads)
        self._launches[threads] = kernel.launch
        return kernel.launch  # type: ignore[no-any-return]


def _thread_count(device: str) -> Callable[[], int]:
    """What the fast path asks for the number of grid threads (0: the kernel's own)."""
    torch = sys.modules.get("torch")
    if device != "cpu" or config.get().num_threads or torch is None:
        return lambda: 0
    return torch.get_num_threads  # type: ignore[no-any-return]
