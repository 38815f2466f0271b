"""A compiled kernel loaded for execution, built through the backend protocol alone.

``build`` is the one way the runtime makes a kernel: ``driver.load`` puts the compiled code on
its device and ``driver.launcher`` turns it into a Launcher, whose ``launch`` becomes the
kernel's own (an instance attribute: a warm launch calls the backend's generated function
directly). LaunchedKernel exposes what Triton's compiled kernel does (``asm``, ``metadata``,
``n_regs``, ``n_spills``, ``compiled[grid](*args)``). A bounds-checked kernel (CheckedKernel)
passes each pointer's extent and an error record as hidden parameters; debug launches take the
Python path, never the native dispatcher, since they need the argument objects themselves.
After the launch the record is read and a violation raises OutOfBoundsError.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..backends.artifacts import CompiledKernel, KernelMetadata
from ..backends.base import (
    EMPTY_GRID,
    Backend,
    Grid3,
    Launcher,
    assert_error,
    normalize_grid,
    runtime_indices,
)
from ..errors import DeviceAssertError
from ..ir.argspec import ArgKind, ArgSpec
from ..ir.bounds import BOUNDS_CODE, BoundsInfo
from . import bounds
from .direct_launch import DirectLaunch


class LaunchedKernel:
    """A loaded kernel: the compiled artifacts, the backend's Launcher and Triton's names."""

    def __init__(
        self,
        compiled: CompiledKernel,
        loaded: Any,
        launcher: Launcher | None,
        all_params: Sequence[ArgSpec],
    ):
        self.compiled = compiled
        self.loaded = loaded  # keeps the code alive
        self.launcher = launcher
        self.asm = compiled.asm
        self.params = tuple(all_params)
        self._pick = runtime_indices(all_params)
        self._direct: Any = None
        # the native launcher's Plan for this kernel: how the C dispatcher launches it
        self._plan: Any = None if launcher is None else launcher.plan
        if launcher is not None:
            self.launch = launcher.launch  # type: ignore[method-assign]

    @property
    def metadata(self) -> KernelMetadata:
        return self.compiled.metadata if self.launcher is None else self.launcher.metadata

    def __repr__(self) -> str:
        params = ", ".join(str(p) for p in self.params)
        return f"<tilec kernel {self.name} on {self.metadata.target} ({params})>"

    name = property(lambda self: self.metadata.name)
    n_regs = property(lambda self: self.metadata.n_regs)
    n_spills = property(lambda self: self.metadata.n_spills)

    def launch(self, grid: Any, *values: Any) -> None:
        """Run over ``grid`` with one value per kernel parameter (constexprs included)."""
        raise NotImplementedError  # replaced by the launcher's, or overridden

    def _init_handles(self) -> None:
        """Triton loads a compiled kernel lazily here; tilec's is loaded already."""

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        """Triton's ``compiled[grid](*args)``: every argument, constexprs included, checked
        against the specialization this kernel was compiled for (direct_launch.py)."""
        if self._direct is None:
            self._direct = DirectLaunch(self)
        direct = self._direct
        return lambda *args: direct(grid, args)

    def assert_error(self, index: int, pid: int, grid: Grid3) -> DeviceAssertError:
        return assert_error(self.metadata, index, pid, grid)


def _objects(params: Sequence[ArgSpec], values: Sequence[Any], arguments: Any) -> dict[str, Any]:
    """Each pointer parameter's argument object (the launch value when no object is known)."""
    given = arguments or {}
    return {
        p.name: given.get(p.name, v) for p, v in zip(params, values) if p.kind is ArgKind.POINTER
    }


def _address(value: Any) -> int:
    return value if isinstance(value, int) else 0


class CheckedKernel(LaunchedKernel):
    """A bounds-checked kernel: its launcher's ``run_checked`` gets the extents of the
    argument objects and returns the record, which becomes the error."""

    launcher: Launcher

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._plan = None  # never the native dispatcher: it would pass no extents
        self.launch = self._launch_addresses  # type: ignore[method-assign]

    @property
    def bounds(self) -> BoundsInfo:
        info = self.metadata.bounds
        assert info is not None
        return info

    def _launch_addresses(self, grid: Any, *values: Any) -> None:
        """A launch with addresses only (no objects): their arguments are not checked."""
        self.launch_checked(grid, values, None)

    def launch_checked(self, grid: Any, values: Sequence[Any], arguments: Any) -> None:
        g = normalize_grid(grid)
        if g == EMPTY_GRID:
            return
        objects = _objects(self.params, values, arguments)
        extents = bounds.extent_words(self.bounds, objects)
        runtime = tuple(values[i] for i in self._pick)
        record = self.launcher.run_checked(g, runtime, extents)
        if record[0] == 0:
            return
        if record[0] < BOUNDS_CODE:
            raise self.assert_error(record[0] - 1, record[1], g)
        bases = {p.name: _address(values[i]) for i, p in enumerate(self.params)}
        raise bounds.bounds_error(self.name, self.bounds, record, g, bases, extents)


def loaded_kernel(
    backend: Backend, compiled: CompiledKernel, loaded: Any, specs: Sequence[ArgSpec]
) -> LaunchedKernel:
    """The kernel for code ``backend`` has loaded: bounds-checked when it was compiled so."""
    launcher = backend.driver.launcher(compiled, loaded, specs)
    kind = LaunchedKernel if compiled.metadata.bounds is None else CheckedKernel
    return kind(compiled, loaded, launcher, specs)


def build(backend: Backend, compiled: CompiledKernel, specs: Sequence[ArgSpec]) -> LaunchedKernel:
    """``driver.load → driver.launcher``: a compiled kernel made ready to launch."""
    return loaded_kernel(backend, compiled, backend.driver.load(compiled), specs)
