"""A compiled kernel loaded for execution: packs launch values and runs the grid.

``CpuKernel`` packs the runtime arguments into 8-byte slots (the CPU kernel ABI) with a
struct precompiled per kernel and calls the launcher; ``CudaKernel`` hands typed values to the
CUDA launcher on the current stream. Both expose what Triton's compiled kernel does
(``asm``, ``metadata``, ``n_regs``, ``n_spills``) and raise DeviceAssertError after a failed
``tl.device_assert``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import os
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import config
from ..backends.artifacts import CompiledKernel, KernelMetadata, Stage
from ..errors import DeviceAssertError, LaunchError, UnsupportedFeature, UsageError
from ..ir import types as ir
from ..ir.argspec import ArgKind, ArgSpec
from . import occupancy

Grid3 = tuple[int, int, int]
_GRIDS: dict[Any, Grid3] = {}
_EMPTY: Grid3 = (0, 0, 0)


def normalize_grid(grid: Any) -> Grid3:
    """``grid`` as 3 non-negative ints; ``(0, 0, 0)`` when any dimension is 0 (nothing runs)."""
    g = _GRIDS.get(grid) if type(grid) is tuple else None
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
    g = (ints[0], ints[1], ints[2]) if all(ints) else _EMPTY
    if type(grid) is tuple and all(type(d) is int for d in grid):
        if len(_GRIDS) > 4096:
            _GRIDS.clear()
        _GRIDS[grid] = g
    return g


def runtime_indices(params: Sequence[ArgSpec]) -> tuple[int, ...]:
    """Positions (among all kernel parameters) of those passed at launch."""
    return tuple(i for i, p in enumerate(params) if p.is_runtime)


def _slot_format(spec: ArgSpec) -> str:
    """The struct format of one 8-byte argument slot (little-endian, CPU kernel ABI)."""
    t = spec.type
    if spec.kind is ArgKind.POINTER:
        return "Q"
    assert isinstance(t, ir.ScalarType)
    if t.kind is ir.Kind.FLOAT:
        formats = {"fp32": "f4x", "fp64": "d", "fp16": "e6x"}
        if t.name not in formats:
            raise UnsupportedFeature(f"scalar kernel arguments of type {t} ({spec.name})")
        return formats[t.name]
    return "Q" if t.kind is ir.Kind.UINT else "q"


class LaunchedKernel:
    """What both backends share: the compiled artifacts and Triton's attribute names."""

    def __init__(self, compiled: CompiledKernel, loaded: Any, all_params: Sequence[ArgSpec]):
        self.compiled = compiled
        self.loaded = loaded  # keeps the code alive
        self.asm = compiled.asm
        self.params = tuple(all_params)
        self._pick = runtime_indices(all_params)
        self._direct: Any = None
        # the native launcher's Plan for this kernel: how the C dispatcher launches it
        self._plan: Any = None

    @property
    def metadata(self) -> KernelMetadata:
        return self.compiled.metadata

    def __repr__(self) -> str:
        params = ", ".join(str(p) for p in self.params)
        return f"<tilec kernel {self.name} on {self.metadata.target} ({params})>"

    name = property(lambda self: self.metadata.name)
    n_regs = property(lambda self: self.metadata.n_regs)
    n_spills = property(lambda self: self.metadata.n_spills)

    def launch(self, grid: Any, *values: Any) -> None:
        """Run over ``grid`` with one value per kernel parameter (constexprs included)."""
        raise NotImplementedError  # each backend's kernel launches its own way

    def _init_handles(self) -> None:
        """Triton loads a compiled kernel lazily here; tilec's is loaded already."""

    def __getitem__(self, grid: Any) -> Callable[..., None]:
        """Triton's ``compiled[grid](*args)``: every argument, constexprs included, checked
        against the specialization this kernel was compiled for (direct_launch.py)."""
        if self._direct is None:
            from .direct_launch import DirectLaunch

            self._direct = DirectLaunch(self)
        direct = self._direct
        return lambda *args: direct(grid, args)

    def assert_error(self, index: int, pid: int, grid: Grid3) -> DeviceAssertError:
        gx, gy, _ = grid
        where = (pid % gx, (pid // gx) % gy, pid // (gx * gy))
        asserts = self.metadata.asserts
        if 0 <= index < len(asserts):
            info = asserts[index]
            text = f"{info.location}: device_assert failed: {info.message}"
        else:
            text = f"device_assert #{index} failed"
        return DeviceAssertError(f"{text} (kernel {self.name}, program id {where})")


class CpuKernel(LaunchedKernel):
    """Runs on the host through ``launcher.run_cpu_grid``.

    Its ``metadata`` reports CPU figures where the compiler has none (occupancy.py): ``n_regs``
    is the target's SIMD register count, ``shared`` the bytes of tile buffers on the stack.
    """

    @functools.cached_property
    def metadata(self) -> KernelMetadata:  # type: ignore[override]
        meta = self.compiled.metadata
        if meta.n_regs and meta.shared:
            return meta
        llir = self.compiled.asm.get(Stage.LLIR.value, "")
        return dataclasses.replace(
            meta,
            n_regs=meta.n_regs or occupancy.vector_registers(meta.target),
            shared=meta.shared or occupancy.stack_bytes(llir if isinstance(llir, str) else ""),
        )

    def __init__(self, compiled: CompiledKernel, loaded: Any, all_params: Sequence[ArgSpec]):
        from . import launcher

        super().__init__(compiled, loaded, all_params)
        runtime = [all_params[i] for i in self._pick]
        fmt = "<" + "".join(_slot_format(p) for p in runtime)
        self._struct = struct.Struct(fmt)
        self._slots = len(runtime)
        self._address = int(loaded.address)
        self._run = launcher.cpu_grid_runner()  # skips the module-level dispatch (0.1 µs)
        self._threads = config.get().num_threads or os.cpu_count() or 1
        self._has_asserts = bool(compiled.metadata.asserts)
        self._pool: list[tuple[Any, int, int]] = []
        self.launch = self._generate_launch(len(all_params))  # type: ignore[method-assign]
        native = launcher.native_module()
        if native is not None:
            codes = launcher.arg_codes(p.type for p in runtime)
            self._plan = native.Plan(
                True, self._address, (1, 1, 1), 0, self._threads, codes, self._pick,
                None, None, None, None, None,
            )  # fmt: skip

    def _new_buffer(self) -> tuple[Any, int, int]:
        buf = (ctypes.c_uint64 * (self._slots + 4))()  # argument slots, then the status block
        address = ctypes.addressof(buf)
        return buf, address, address + 8 * self._slots

    def _generate_launch(self, n: int) -> Callable[..., None]:
        """This kernel's launch function: every per-kernel constant is a closure variable and
        only the runtime values are packed, which saves ~0.3 µs over a generic method."""
        values = ", ".join(f"v{i}" for i in range(n))
        picked = "".join(f", v{i}" for i in self._pick)
        source = "\n".join([
            "def _factory(_grids, _normalize, _empty, _pool, _new, _pack, _run, _address,",
            "             _threads, _asserts, _slots, _raise_assert, _pack_error):",
            "    _pop, _push = _pool.pop, _pool.append",
            f"    def launch(grid{', ' if n else ''}{values}):",
            "        g = _grids.get(grid) if type(grid) is tuple else None",
            "        if g is None:",
            "            g = _normalize(grid)",
            "        if g is _empty:",
            "            return",
            "        try:  # list.pop is atomic: threads never share an argument buffer",
            "            entry = _pop()",
            "        except IndexError:",
            "            entry = _new()",
            "        buf = entry[0]",
            "        try:",
            f"            _pack(buf, 0{picked})",
            "        except (ValueError, OverflowError) as exc:  # struct.error is a ValueError",
            f"            raise _pack_error(({values}{',' if n == 1 else ''}), exc) from None",
            "        _run(_address, entry[1], g, _threads, entry[2])",
            "        if _asserts and buf[_slots]:",
            "            _raise_assert(buf, g)",
            "        _push(entry)",
            "    return launch",
        ])  # fmt: skip
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<tilec cpu launch {self.name}>", "exec"), namespace)
        launch: Callable[..., None] = namespace["_factory"](
            _GRIDS, normalize_grid, _EMPTY, self._pool, self._new_buffer, self._struct.pack_into,
            self._run, self._address, self._threads, self._has_asserts, self._slots,
            self._raise_assert, self._pack_error,
        )  # fmt: skip
        return launch

    def _pack_error(self, values: tuple[Any, ...], exc: Exception) -> UsageError:
        for i in self._pick:
            try:
                struct.pack("<" + _slot_format(self.params[i]), values[i])
            except (struct.error, OverflowError):
                p = self.params[i]
                return UsageError(f"{self.name}: {p.name}={values[i]!r} does not fit in {p.type}")
        return UsageError(f"{self.name}: cannot pack the arguments ({exc})")

    def _raise_assert(self, buf: Any, grid: Grid3) -> None:
        index, pid = buf[self._slots] - 1, buf[self._slots + 1]
        for i in range(4):  # the status block is zero again before the buffer is reused
            buf[self._slots + i] = 0
        self._pool.append((buf, ctypes.addressof(buf), ctypes.addressof(buf) + 8 * self._slots))
        raise self.assert_error(int(index), int(pid), grid)


def _torch_stream() -> int:
    """torch's current CUDA stream when the user imported torch, else the default stream."""
    return _stream_source()()


def _stream_source(device: int | None = None) -> Callable[[], int]:
    """A function returning the stream to launch on, resolved once: torch's C-level getters
    cost ~0.2 µs where ``torch.cuda.current_stream()`` costs several. With ``device``, it
    also refuses to launch while torch's current device is another one."""
    if "torch" not in sys.modules:
        return _default_stream
    getters = _torch_stream_getters()
    if getters is None:
        return _null_stream  # a torch build without CUDA has no streams of its own
    get_device, get_stream = getters
    if device is None:
        return lambda: get_stream(get_device())  # type: ignore[no-any-return]

    def stream() -> int:
        current = get_device()
        if current != device:
            raise LaunchError(
                f"this kernel was loaded on CUDA device {device} but torch's current device is "
                f"{current}; tilec runs each kernel on the device it was first launched on (#5)"
            )
        return get_stream(current)  # type: ignore[no-any-return]

    return stream


def _torch_stream_getters() -> tuple[Callable[[], int], Callable[[int], int]] | None:
    """torch's C-level current-device and current-stream getters, when torch has CUDA."""
    torch_c = getattr(sys.modules.get("torch"), "_C", None)
    get_device = getattr(torch_c, "_cuda_getDevice", None)
    get_stream = getattr(torch_c, "_cuda_getCurrentRawStream", None)
    return None if get_device is None or get_stream is None else (get_device, get_stream)


def _current_torch_device() -> int | None:
    getters = _torch_stream_getters()
    return int(getters[0]()) if getters is not None else None


def _null_stream() -> int:
    return 0


def _default_stream() -> int:
    # torch may be imported after the kernel was loaded: look again (cheap) on every launch
    return 0 if "torch" not in sys.modules else _stream_source()()


class CudaKernel(LaunchedKernel):
    """Runs on the GPU through ``launcher.launch_cuda``."""

    def __init__(self, compiled: CompiledKernel, loaded: Any, all_params: Sequence[ArgSpec]):
        from . import launcher

        super().__init__(compiled, loaded, all_params)
        # the loaded function's register count as the driver reports it (cuFuncGetAttribute):
        # the figure occupancy depends on, and the only one when the driver JIT-compiled the PTX
        regs = getattr(loaded, "n_regs", 0)
        meta = compiled.metadata
        self._metadata = dataclasses.replace(meta, n_regs=regs) if regs else meta
        runtime = [all_params[i] for i in self._pick]
        self._codes = b"".join(launcher.arg_code(p.type) for p in runtime)
        handle = getattr(loaded, "handle", None)
        self._function = int(handle if handle is not None else loaded.function)
        self._block = (32 * compiled.metadata.options.num_warps, 1, 1)
        # metadata.shared is the dynamic shared memory the CUDA backend's kernels use for layout
        # conversions and reductions (as in Triton); every launch must pass it.
        self._shared = compiled.metadata.shared
        self._launch = launcher.cuda_launcher()  # skips the module-level dispatch
        self._device = _current_torch_device()  # where the driver loaded the module
        self._stream = _stream_source(self._device)
        self.launch = self._generate_launch(len(all_params))  # type: ignore[method-assign]
        self._plan = self._native_plan()

    @property
    def metadata(self) -> KernelMetadata:
        return self._metadata

    def _native_plan(self) -> Any:
        """The Plan the C dispatcher launches this kernel with: torch's getters straight from C
        when torch has CUDA, else this kernel's stream function (None: no native launcher)."""
        from . import launcher

        native = launcher.native_module()
        if native is None:
            return None
        getters = _torch_stream_getters()
        stream: tuple[Any, ...]  # (get_device, get_stream, device, stream function, exchange)
        if getters is not None and self._device is not None:
            from .dlpack_exchange import torch_exchange

            exchange = torch_exchange(sys.modules["torch"])
            stream = (*getters, self._device, None, exchange.capsule if exchange else None)
        else:
            stream = (None, None, None, self._stream, None)
        return native.Plan(
            False, self._function, self._block, self._shared, 1, self._codes, self._pick,
            *stream,
        )  # fmt: skip

    def _generate_launch(self, n: int) -> Callable[..., None]:
        """This kernel's launch function, its constants in closure variables (as on the CPU)."""
        values = ", ".join(f"v{i}" for i in range(n))
        picked = "(" + "".join(f"v{i}, " for i in self._pick) + ")"
        source = "\n".join([
            "def _factory(_grids, _normalize, _empty, _kernel, _launch, _function, _block,",
            "             _shared, _codes):",
            f"    def launch(grid{', ' if n else ''}{values}):",
            "        g = _grids.get(grid) if type(grid) is tuple else None",
            "        if g is None:",
            "            g = _normalize(grid)",
            "        if g is _empty:",
            "            return",
            "        _launch(_function, g, _block, _shared, _kernel._stream(), _codes,",
            f"                {picked})",
            "    return launch",
        ])  # fmt: skip
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<tilec cuda launch {self.name}>", "exec"), namespace)
        launch: Callable[..., None] = namespace["_factory"](
            _GRIDS, normalize_grid, _EMPTY, self, self._launch, self._function, self._block,
            self._shared, self._codes,
        )  # fmt: skip
        return launch
