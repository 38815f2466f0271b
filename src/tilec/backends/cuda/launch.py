"""Launching a CUDA kernel: typed values to cuLaunchKernel on the current stream.

The launcher packs the runtime values by their one-letter type codes and calls cuLaunchKernel
(natively, or through ctypes); the stream is torch's current one when the program uses torch,
found through torch's C-level getters (~0.2 µs) rather than ``torch.cuda.current_stream()``.
A bounds-checked kernel also gets a device record, read back after its stream synchronizes.
"""

from __future__ import annotations

import ctypes
import dataclasses
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ... import config
from ...errors import LaunchError
from ...ir.argspec import ArgSpec
from ...ir.bounds import RECORD_WORDS
from ...ir.types import PointerType, int64
from .. import launcher
from ..artifacts import CompiledKernel, KernelMetadata
from ..base import Grid3, generated_launch, runtime_indices
from ..dlpack_exchange import torch_exchange


def torch_stream() -> int:
    """torch's current CUDA stream when the user imported torch, else the default stream."""
    return stream_source()()


def stream_source(device: int | None = None) -> Callable[[], int]:
    """A function returning the stream to launch on, resolved once: torch's C-level getters
    cost ~0.2 µs where ``torch.cuda.current_stream()`` costs several. With ``device``, it
    also refuses to launch while torch's current device is another one."""
    if "torch" not in sys.modules:
        return _default_stream
    getters = torch_stream_getters()
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


def torch_stream_getters() -> tuple[Callable[[], int], Callable[[int], int]] | None:
    """torch's C-level current-device and current-stream getters, when torch has CUDA."""
    torch_c = getattr(sys.modules.get("torch"), "_C", None)
    get_device = getattr(torch_c, "_cuda_getDevice", None)
    get_stream = getattr(torch_c, "_cuda_getCurrentRawStream", None)
    return None if get_device is None or get_stream is None else (get_device, get_stream)


def current_torch_device() -> int | None:
    getters = torch_stream_getters()
    return int(getters[0]()) if getters is not None else None


def _null_stream() -> int:
    return 0


def _default_stream() -> int:
    # torch may be imported after the kernel was loaded: look again (cheap) on every launch
    return 0 if "torch" not in sys.modules else stream_source()()


class CudaLauncher:
    """Runs a loaded CUDA kernel (a CUfunction ``handle``) through ``launcher.launch_cuda``."""

    def __init__(self, compiled: CompiledKernel, loaded: Any, all_params: Sequence[ArgSpec]):
        self.compiled = compiled
        self.params = tuple(all_params)
        self._pick = runtime_indices(all_params)
        # the loaded function's register count as the driver reports it (cuFuncGetAttribute):
        # the figure occupancy depends on, and the only one when the driver JIT-compiled the PTX
        regs = getattr(loaded, "n_regs", 0)
        meta = compiled.metadata
        self.metadata: KernelMetadata = dataclasses.replace(meta, n_regs=regs) if regs else meta
        self._codes = launcher.arg_codes(all_params[i].type for i in self._pick)
        handle = getattr(loaded, "handle", None)
        self._function = int(handle if handle is not None else loaded.function)
        self._block = (meta.threads, 1, 1)
        # metadata.shared is the dynamic shared memory the CUDA backend's kernels use for layout
        # conversions and reductions (as in Triton); every launch must pass it.
        self._shared = meta.shared
        self._launch = launcher.cuda_launcher()  # skips the module-level dispatch
        self._device = current_torch_device()  # where the driver loaded the module
        self._stream = stream_source(self._device)
        self._record: DeviceRecord | None = None
        self.launch = self._generate_launch(len(all_params))
        # a bounds-checked kernel never takes the native dispatcher: it passes no extents
        self.plan = self._native_plan() if meta.bounds is None else None

    @property
    def name(self) -> str:
        return self.compiled.metadata.name

    def _native_plan(self) -> Any:
        """The Plan the C dispatcher launches this kernel with: torch's getters straight from C
        when torch has CUDA, else this kernel's stream function (None: no native launcher)."""
        native = launcher.native_module()
        if native is None:
            return None
        getters = torch_stream_getters()
        stream: tuple[Any, ...]  # (get_device, get_stream, device, stream function, exchange)
        if getters is not None and self._device is not None:
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
        picked = "(" + "".join(f"v{i}, " for i in self._pick) + ")"
        consts = {
            "_kernel": self, "_launch": self._launch, "_function": self._function,
            "_block": self._block, "_shared": self._shared, "_codes": self._codes,
        }  # fmt: skip
        return generated_launch(f"<tilec cuda launch {self.name}>", n, consts, [
            f"_launch(_function, g, _block, _shared, _kernel._stream(), _codes, {picked})",
        ])  # fmt: skip

    def run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: Sequence[int]
    ) -> tuple[int, int, int]:
        """The kernel with ``lo, hi`` parameters, the record and scratch pointers."""
        info = self.compiled.metadata.bounds
        assert info is not None
        if self._record is None:
            self._record = DeviceRecord()
        record = self._record
        stream = self._stream()
        record.clear(stream)
        scratch = record.address + 8 * (RECORD_WORDS - 1)
        hidden = (*extents, record.address, *[scratch] * info.scratch)
        types = [int64] * (2 * len(info.pointers)) + [PointerType(int64)] * (1 + info.scratch)
        self._launch(
            self._function, grid, self._block, self._shared, stream,
            self._codes + launcher.arg_codes(types), (*runtime, *hidden),
        )  # fmt: skip
        return record.read(stream)


class DeviceRecord:
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
