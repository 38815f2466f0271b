"""The backend protocol: what a backend hands the runtime, and the values they exchange.

A backend is a compiler half (tile IR → CompiledKernel, plain data) and a driver half that owns
everything after it: ``load`` puts the code on its device, ``launcher`` turns the loaded code into
a Launcher whose ``launch(grid, *values)`` runs it. The runtime builds every kernel as
``compile → driver.load → driver.launcher`` and never names a backend; ``registry`` finds one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..errors import DeviceAssertError, UsageError
from ..ir.argspec import ArgSpec
from ..ir.ops.func import ModuleOp
from .artifacts import AssertInfo, CompiledKernel, KernelMetadata, Stage
from .target import CompileOptions, Target

__all__ = [
    "AssertInfo",
    "Backend",
    "Benchmarker",
    "CompileOptions",
    "CompiledKernel",
    "Compiler",
    "Driver",
    "GPUTarget",
    "Grid3",
    "KernelMetadata",
    "Launcher",
    "Stage",
    "Target",
    "assert_error",
    "generated_launch",
    "normalize_grid",
    "runtime_indices",
]

Grid3 = tuple[int, int, int]
EMPTY_GRID: Grid3 = (0, 0, 0)
GRIDS: dict[Any, Grid3] = {}  # tuple grids of ints already normalized (a launch's fast path)


@dataclass(frozen=True)
class GPUTarget:
    """Triton's target triple: ``backend``, ``arch`` (90 for sm_90), warp size."""

    backend: str
    arch: int | str
    warp_size: int


Benchmarker = Callable[..., list[float]]
"""``(fn, warmup_ms, rep_ms, grad_to_none) -> milliseconds per timed call``."""


@runtime_checkable
class Compiler(Protocol):
    def stages(self) -> Sequence[Stage]:
        """The artifacts ``compile`` produces, in order."""
        ...

    def compile(
        self, module: ModuleOp, target: Target, options: CompileOptions
    ) -> CompiledKernel: ...


@runtime_checkable
class Launcher(Protocol):
    """A loaded kernel ready to run. ``launch`` takes one value per kernel parameter
    (constexprs included); ``plan`` is the native dispatcher's plan for it (None: launches go
    through ``launch``); ``metadata`` is the compiled metadata with what loading learned."""

    metadata: KernelMetadata
    plan: Any

    def launch(self, grid: Any, *values: Any) -> None: ...

    def run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: Sequence[int]
    ) -> tuple[int, int, int]:
        """Run a bounds-checked kernel (``metadata.bounds``) with its hidden extents and return
        the error record's first three words."""
        ...


@runtime_checkable
class Driver(Protocol):
    """A backend's host half: availability, targets, loading and launching, device facts."""

    name: str  # the backend's registry name (what Target.kind says)
    memory: str  # the memory space its kernels read (an argument's device kind)

    def is_available(self) -> bool: ...

    def current_target(self) -> Target: ...

    def target_for(self, arch: str) -> Target:
        """The target for ``arch`` (``sm_90a`` ...) without asking the device."""
        ...

    def load(self, compiled: CompiledKernel) -> Any: ...

    def launcher(
        self, compiled: CompiledKernel, loaded: Any, params: Sequence[ArgSpec]
    ) -> Launcher: ...

    def device_properties(self, device: int = 0) -> dict[str, Any]:
        """Triton's ``utils.get_device_properties`` names."""
        ...

    def benchmarker(self, graph: bool = False) -> Benchmarker:
        """do_bench's clock; ``graph``: do_bench_cudagraph's (UnsupportedFeature without)."""
        ...

    def gpu_target(self) -> GPUTarget: ...

    # Triton's host API (runtime.driver.active answers it through these)
    torch_device: str  # torch's name of the device type (``torch.<name>`` is its interface)

    def current_device(self) -> int: ...

    def set_current_device(self, device: int) -> None: ...

    def current_stream(self, device: int | None = None) -> int: ...

    def active_torch_device(self, torch: Any) -> Any: ...

    def empty_cache_for_benchmark(self) -> Any: ...

    def clear_cache(self, cache: Any) -> None: ...


@dataclass(frozen=True)
class Backend:
    name: str
    compiler: Compiler
    driver: Driver


def normalize_grid(grid: Any) -> Grid3:
    """``grid`` as 3 non-negative ints; ``(0, 0, 0)`` when any dimension is 0 (nothing runs)."""
    g = GRIDS.get(grid) if type(grid) is tuple else None
    if g is not None:
        return g
    dims = tuple(grid) if isinstance(grid, (tuple, list)) else (grid,)
    if not 1 <= len(dims) <= 3:
        raise UsageError(f"grid must have 1 to 3 dimensions, got {grid!r}")
    try:
        ints = [d.__index__() for d in dims]
    except (AttributeError, TypeError):
        raise UsageError(f"grid dimensions must be integers, got {grid!r}") from None
    if any(d < 0 for d in ints):
        raise UsageError(f"grid dimensions must be >= 0, got {grid!r}")
    while len(ints) < 3:
        ints.append(1)
    g = (ints[0], ints[1], ints[2]) if all(ints) else EMPTY_GRID
    if type(grid) is tuple and all(type(d) is int for d in grid):
        if len(GRIDS) > 4096:
            GRIDS.clear()
        GRIDS[grid] = g
    return g


def generated_launch(
    where: str, n: int, consts: dict[str, Any], body: Sequence[str]
) -> Callable[..., None]:
    """A launch function generated for one kernel: ``launch(grid, v0, ..., v{n-1})`` turns the
    grid into 3 ints (a dict hit for tuple grids seen before), returns on an empty grid, then runs
    ``body`` (lines at function level, with ``g`` the grid). Every per-kernel constant is a
    closure variable named by ``consts``, which saves ~0.3 µs over a generic method."""
    values = ", ".join(f"v{i}" for i in range(n))
    names = ", ".join(["_grids", "_normalize", "_empty", *consts])
    source = "\n".join([
        f"def _factory({names}):",
        f"    def launch(grid{', ' if n else ''}{values}):",
        "        g = _grids.get(grid) if type(grid) is tuple else None",
        "        if g is None:",
        "            g = _normalize(grid)",
        "        if g is _empty:",
        "            return",
        *(f"        {line}" for line in body),
        "    return launch",
    ])  # fmt: skip
    namespace: dict[str, Any] = {}
    exec(compile(source, where, "exec"), namespace)
    launch: Callable[..., None] = namespace["_factory"](
        GRIDS, normalize_grid, EMPTY_GRID, *consts.values()
    )
    return launch


def runtime_indices(params: Sequence[ArgSpec]) -> tuple[int, ...]:
    """Positions (among all kernel parameters) of those passed at launch."""
    return tuple(i for i, p in enumerate(params) if p.is_runtime)


def assert_error(metadata: KernelMetadata, index: int, pid: int, grid: Grid3) -> DeviceAssertError:
    """The error for device_assert site ``index`` failing in program ``pid`` of ``grid``."""
    gx, gy, _ = grid
    where = (pid % gx, (pid // gx) % gy, pid // (gx * gy))
    asserts = metadata.asserts
    if 0 <= index < len(asserts):
        info = asserts[index]
        text = f"{info.location}: device_assert failed: {info.message}"
    else:
        text = f"device_assert #{index} failed"
    return DeviceAssertError(f"{text} (kernel {metadata.name}, program id {where})")
