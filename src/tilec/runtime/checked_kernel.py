"""Launching a bounds-checked kernel: extents and an error record travel as hidden parameters.

Debug launches take the Python path (never the native dispatcher): they need the argument
objects themselves, not only their addresses, to find each one's memory extent. After the
launch (on CUDA: after synchronizing its stream) the record is read and a violation raises
OutOfBoundsError. The CPU kernel's status block doubles as the record, so a failed
device_assert and a bounds violation, whichever comes first, stop the grid the same way.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

from .. import config
from ..errors import LaunchError
from ..ir.argspec import ArgKind, ArgSpec
from ..ir.bounds import BOUNDS_CODE, RECORD_WORDS, BoundsInfo
from ..ir.types import PointerType, int64
from . import bounds, launcher
from .kernel import CpuKernel, CudaKernel, Grid3, LaunchedKernel, normalize_grid


def _objects(params: Sequence[ArgSpec], values: Sequence[Any], arguments: Any) -> dict[str, Any]:
    """Each pointer parameter's argument object (the launch value when no object is known)."""
    given = arguments or {}
    return {
        p.name: given.get(p.name, v) for p, v in zip(params, values) if p.kind is ArgKind.POINTER
    }


def _address(value: Any) -> int:
    return value if isinstance(value, int) else 0


class _Checked:
    """What both backends' checked kernels share: the hidden argument words and the error."""

    params: tuple[ArgSpec, ...]
    _pick: tuple[int, ...]
    name: str
    metadata: Any

    @property
    def bounds(self) -> BoundsInfo:
        info = self.metadata.bounds
        assert info is not None
        return info

    def launch(self, grid: Any, *values: Any) -> None:
        """A launch with addresses only (no objects): their arguments are not checked."""
        self.launch_checked(grid, values, None)

    def launch_checked(self, grid: Any, values: Sequence[Any], arguments: Any) -> None:
        g = normalize_grid(grid)
        if g == (0, 0, 0):
            return
        objects = _objects(self.params, values, arguments)
        extents = bounds.extent_words(self.bounds, objects)
        runtime = tuple(values[i] for i in self._pick)
        record = self._run_checked(g, runtime, extents)
        if record[0] == 0:
            return
        if record[0] < BOUNDS_CODE:
            raise self.assert_error(record[0] - 1, record[1], g)  # type: ignore[attr-defined]
        bases = {p.name: _address(values[i]) for i, p in enumerate(self.params)}
        raise bounds.bounds_error(self.name, self.bounds, record, g, bases, extents)

    def _run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: list[int]
    ) -> tuple[int, int, int]:
        raise NotImplementedError


class CheckedCpuKernel(_Checked, CpuKernel):
    """The CPU kernel with ``lo, hi`` slots, the record (its status block) and scratch."""

    def __init__(self, compiled: Any, loaded: Any, all_params: Sequence[ArgSpec]):
        super().__init__(compiled, loaded, all_params)
        info = self.bounds
        self._codes = launcher.arg_codes(p.type for p in (all_params[i] for i in self._pick))
        self._hidden = 2 * len(info.pointers) + 1 + info.scratch
        self._plan = None  # never the native dispatcher: it would pass no extents
        self.launch = self._launch_addresses  # type: ignore[method-assign]

    def _launch_addresses(self, grid: Any, *values: Any) -> None:
        self.launch_checked(grid, values, None)

    def _run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: list[int]
    ) -> tuple[int, int, int]:
        n = len(runtime) + self._hidden
        buf = (ctypes.c_uint64 * (n + RECORD_WORDS))()
        status = ctypes.addressof(buf) + 8 * n
        scratch = status + 8 * (RECORD_WORDS - 1)
        hidden = [*extents, status, *[scratch] * self.bounds.scratch]
        codes = self._codes + b"Q" * len(hidden)
        launcher.pack_args(codes, (*runtime, *hidden), ctypes.addressof(buf))
        self._run(self._address, ctypes.addressof(buf), grid, self._threads, status)
        return (int(buf[n]), int(buf[n + 1]), int(buf[n + 2]))


class _DeviceRecord:
    """The record of a checked CUDA kernel: device memory in the current context, through the
    driver library the launcher uses (cleared before and read after each launch)."""

    _lib: Any = None

    def __init__(self) -> None:
        lib = self.library()
        ptr = ctypes.c_uint64()
        self._check(lib.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(8 * RECORD_WORDS)))
        self.address = int(ptr.value)

    @classmethod
    def library(cls) -> Any:
        if cls._lib is None:
            names = [config.get().libcuda_path or "libcuda.so.1", "libcuda.so", "nvcuda.dll"]
            for name in names:
                try:
                    cls._lib = ctypes.CDLL(name)
                    break
                except OSError:
                    continue
            else:
                raise LaunchError("bounds-checked mode cannot open the CUDA driver library")
        return cls._lib

    def _check(self, rc: int) -> None:
        if rc != 0:
            raise LaunchError(f"bounds-checked mode: a CUDA driver call failed ({rc})", rc)

    def clear(self, stream: int) -> None:
        lib = self.library()
        self._check(
            lib.cuMemsetD8Async(
                ctypes.c_uint64(self.address), ctypes.c_ubyte(0),
                ctypes.c_size_t(8 * RECORD_WORDS), ctypes.c_void_p(stream),
            )
        )  # fmt: skip

    def read(self, stream: int) -> tuple[int, int, int]:
        lib = self.library()
        self._check(lib.cuStreamSynchronize(ctypes.c_void_p(stream)))
        out = (ctypes.c_uint64 * RECORD_WORDS)()
        size = ctypes.c_size_t(8 * RECORD_WORDS)
        self._check(lib.cuMemcpyDtoH_v2(out, ctypes.c_uint64(self.address), size))
        return (int(out[0]), int(out[1]), int(out[2]))


class CheckedCudaKernel(_Checked, CudaKernel):
    """The CUDA kernel with ``lo, hi`` parameters, the record and scratch pointers."""

    def __init__(self, compiled: Any, loaded: Any, all_params: Sequence[ArgSpec]):
        super().__init__(compiled, loaded, all_params)
        info = self.bounds
        hidden = [int64] * (2 * len(info.pointers)) + [PointerType(int64)] * (1 + info.scratch)
        self._hidden_codes = launcher.arg_codes(hidden)
        self._record: _DeviceRecord | None = None
        self._plan = None
        self.launch = self._launch_addresses  # type: ignore[method-assign]

    def _launch_addresses(self, grid: Any, *values: Any) -> None:
        self.launch_checked(grid, values, None)

    def _run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: list[int]
    ) -> tuple[int, int, int]:
        if self._record is None:
            self._record = _DeviceRecord()
        record = self._record
        stream = self._stream()
        record.clear(stream)
        scratch = record.address + 8 * (RECORD_WORDS - 1)
        hidden = (*extents, record.address, *[scratch] * self.bounds.scratch)
        self._launch(
            self._function, grid, self._block, self._shared, stream,
            self._codes + self._hidden_codes, (*runtime, *hidden),
        )  # fmt: skip
        return record.read(stream)


def checked_kind(device: str) -> Callable[..., LaunchedKernel]:
    """The kernel class that launches a bounds-checked kernel on ``device``."""
    return CheckedCpuKernel if device == "cpu" else CheckedCudaKernel


def debug_mode(jit: Any) -> bool:
    """Whether launches of ``jit`` (a JITFunction) compile bounds-checked kernels by default."""
    return bool(jit.debug if jit.debug is not None else config.get().debug)


class BoundLaunch:
    """A checked kernel with the argument objects of one launch that reached it through the
    address-only path (the launch right after a configuration switch turned debug mode on)."""

    def __init__(self, kernel: Any, arguments: dict[str, Any]) -> None:
        self.kernel, self.arguments = kernel, arguments

    def launch(self, grid: Any, *values: Any) -> None:
        self.kernel.launch_checked(grid, values, self.arguments)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def checked_launch(launch: Callable[..., Any]) -> Callable[..., Any]:
    """A JITFunction's launch function in debug mode: every launch takes the keyword path,
    which hands the argument objects to the kernel (``debug=False`` at launch opts out)."""

    def debug_launch(grid: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("debug", True)
        return launch(grid, *args, **kwargs)

    debug_launch.__name__ = debug_launch.__qualname__ = getattr(launch, "__name__", "kernel")
    return debug_launch
