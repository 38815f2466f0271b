"""The CUDA driver half of the backend: device discovery, context, module loading, launching.

Everything goes through cuda-bindings (``cuda.bindings.driver``), imported on first use. The
current context is used when there is one (torch's, CuPy's); otherwise the device's primary
context is retained and made current, which is the one torch and CuPy use as well.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ... import config
from ...errors import LaunchError, PlatformError, UnsupportedFeature, UsageError
from ...ir.argspec import ArgSpec
from ...ir.types import PointerType, ScalarType
from ...platform.target import target_for_cc
from ..artifacts import CompiledKernel
from ..base import Benchmarker, GPUTarget
from ..float_bits import FORMATS, round_float_bits
from ..target import Target
from . import ptx_version, timing
from .launch import CudaLauncher, current_torch_device, torch_stream
from .layout import WARP_SIZE


def _cu() -> Any:
    from cuda.bindings import driver as cu  # lazy: optional (the cuda extra)

    return cu


def check(result: Any, what: str) -> Any:
    """Unpack a cuda-bindings ``(CUresult, *values)`` tuple, raising LaunchError on failure."""
    err, *values = result if isinstance(result, tuple) else (result,)
    cu = _cu()
    if err != cu.CUresult.CUDA_SUCCESS:
        name = cu.cuGetErrorName(err)[1]
        text = name.decode() if isinstance(name, bytes) else str(err)
        raise LaunchError(f"{what} failed: {text}", code=int(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def arch_name(major: int, minor: int) -> str:
    """The target tilec emits for a compute capability, from the support table the doctor reads
    (``sm_{major}{minor}`` when the table does not know it: ptx_version.choose then refuses it)."""
    return target_for_cc(f"{major}.{minor}") or f"sm_{major}{minor}"


@dataclass
class LoadedKernel:
    """A kernel loaded into the current context; ``handle`` is the CUfunction as an int."""

    module: Any
    function: Any
    handle: int
    compiled: CompiledKernel
    n_regs: int
    n_spills: int
    shared: int

    @property
    def num_warps(self) -> int:
        return self.compiled.metadata.options.num_warps

    def launch(self, grid: tuple[int, ...], args: tuple[Any, ...], stream: int = 0) -> None:
        launch(self, grid, args, stream)


_ATTRIBUTES = {
    "multiprocessor_count": "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
    "max_shared_mem": "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "max_num_regs": "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK",
    "warpSize": "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
    "sm_clock_rate": "CU_DEVICE_ATTRIBUTE_CLOCK_RATE",
    "mem_clock_rate": "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE",
    "mem_bus_width": "CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH",
}


def _torch(what: str) -> Any:
    torch = sys.modules.get("torch")
    if torch is None:
        raise UsageError(f"{what} returns a torch object: import torch first")
    return torch


class CudaDriver:
    """An NVIDIA GPU through the CUDA driver; devices and streams follow torch when imported."""

    name = "cuda"
    memory = "cuda"  # kernels read CUDA device memory
    torch_device = "cuda"

    def __init__(self) -> None:
        # current_target's answers by (device ordinal, requested PTX version)
        self._targets: dict[tuple[int, int | None], Target] = {}

    def is_available(self) -> bool:
        try:
            cu = _cu()
            check(cu.cuInit(0), "cuInit")
            return bool(check(cu.cuDeviceGetCount(), "cuDeviceGetCount"))
        except Exception:  # no library, no driver, no device: simply unavailable
            return False

    def ensure_context(self) -> Any:
        cu = _cu()
        check(cu.cuInit(0), "cuInit")
        ctx = check(cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if ctx is None or int(ctx) == 0:
            dev = check(cu.cuDeviceGet(0), "cuDeviceGet")
            ctx = check(cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
            check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        return ctx

    def current_target(self) -> Target:
        """The current device's target, queried once per (device, requested PTX version):
        programs ask for it on every call (Triton's tutorials do, through ``is_hip()``), and
        the driver calls behind it cost ~100 µs."""
        device = current_torch_device()
        if device is None:
            device = self._context_device()
        requested = config.get().ptx_version  # TILEC_PTX_VERSION, validated like any other
        target = self._targets.get((device, requested))
        if target is None:
            target = self._targets[device, requested] = self._query_target(device, requested)
        return target

    def _context_device(self) -> int:
        """The ordinal of the current context's device (device 0's primary context if none)."""
        cu = _cu()
        err, dev = cu.cuCtxGetDevice()
        if err == cu.CUresult.CUDA_SUCCESS:
            return int(dev)
        self._require_device()
        self.ensure_context()
        return int(check(cu.cuCtxGetDevice(), "cuCtxGetDevice"))

    def _require_device(self) -> None:
        if not self.is_available():
            raise PlatformError("no CUDA device is available (run `tilec doctor`)")

    def _query_target(self, device: int, requested: int | None) -> Target:
        cu = _cu()
        self._require_device()
        dev = check(cu.cuDeviceGet(device), "cuDeviceGet")
        attr = cu.CUdevice_attribute
        major = check(
            cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
            "cuDeviceGetAttribute",
        )
        minor = check(
            cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
            "cuDeviceGetAttribute",
        )
        version = check(cu.cuDriverGetVersion(), "cuDriverGetVersion")
        arch = arch_name(major, minor)
        return Target("cuda", arch, ptx_version=ptx_version.choose(arch, version, requested))

    def target_for(self, arch: str) -> Target:
        """``arch`` (``sm_90a``) with the PTX version this tilec emits for it, offline."""
        return Target(
            "cuda", arch, ptx_version=ptx_version.choose(arch, None, config.get().ptx_version)
        )

    def gpu_target(self) -> GPUTarget:
        arch = str(self.current_target().arch)  # "sm_90a"
        digits = "".join(ch for ch in arch if ch.isdigit())
        return GPUTarget("cuda", int(digits) if digits else arch, WARP_SIZE)

    def launcher(
        self, compiled: CompiledKernel, loaded: LoadedKernel, params: Sequence[ArgSpec]
    ) -> CudaLauncher:
        return CudaLauncher(compiled, loaded, params)

    def device_properties(self, device: int = 0) -> dict[str, Any]:
        """Triton's property names, read with cuDeviceGetAttribute."""
        cu = _cu()
        cu.cuInit(0)
        err, dev = cu.cuDeviceGet(int(device))
        if int(err) != 0:
            raise PlatformError(f"CUDA device {device} is not available: {err!r}")
        props: dict[str, Any] = {}
        for name, attr in _ATTRIBUTES.items():
            err, value = cu.cuDeviceGetAttribute(getattr(cu.CUdevice_attribute, attr), dev)
            props[name] = int(value) if int(err) == 0 else 0
        return props

    def benchmarker(self, graph: bool = False) -> Benchmarker:
        """CUDA events with the L2 flushed between runs, or a torch CUDA graph's replays."""
        if not graph:
            return timing.time_calls
        torch = sys.modules.get("torch")
        if torch is None:
            raise UnsupportedFeature(
                "do_bench_cudagraph captures with torch.cuda.CUDAGraph: import torch"
            )
        return lambda fn, warmup, rep, grad_to_none: timing.time_graph(torch, fn, rep, grad_to_none)

    # Triton's host API (runtime.driver.active): devices and streams follow torch
    def current_device(self) -> int:
        torch = sys.modules.get("torch")
        return int(torch.cuda.current_device()) if torch is not None else 0

    def set_current_device(self, device: int) -> None:
        _torch("set_current_device").cuda.set_device(device)

    def current_stream(self, device: int | None = None) -> int:
        return torch_stream()

    def active_torch_device(self, torch: Any) -> Any:
        return torch.device("cuda", self.current_device())

    def empty_cache_for_benchmark(self) -> Any:
        """256 MiB on the GPU (torch), larger than any L2; ``clear_cache`` zeroes it."""
        torch = _torch("get_empty_cache_for_benchmark")
        return torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def clear_cache(self, cache: Any) -> None:
        cache.zero_()

    def load(self, compiled: CompiledKernel) -> LoadedKernel:
        cu = _cu()
        self.ensure_context()
        cubin = compiled.asm.get("cubin")
        if isinstance(cubin, bytes):
            image = cubin
        else:  # no assembler was found: the driver JIT-compiles the PTX
            ptx = compiled.asm["ptx"]
            image = (ptx if isinstance(ptx, str) else ptx.decode()).encode() + b"\0"
        module = check(cu.cuModuleLoadData(image), "cuModuleLoadData")
        fn = check(
            cu.cuModuleGetFunction(module, compiled.metadata.symbol.encode()), "cuModuleGetFunction"
        )
        fa = cu.CUfunction_attribute
        regs = check(cu.cuFuncGetAttribute(fa.CU_FUNC_ATTRIBUTE_NUM_REGS, fn), "cuFuncGetAttribute")
        shared = compiled.metadata.shared  # dynamic: the launch passes it
        if shared > 48 * 1024:  # above 48 KiB a kernel must opt in
            check(
                cu.cuFuncSetAttribute(
                    fn, fa.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared
                ),
                "cuFuncSetAttribute",
            )
        return LoadedKernel(
            module, fn, int(fn), compiled, int(regs), compiled.metadata.n_spills, shared
        )


_CTYPES = {
    "i1": ctypes.c_int8, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
    "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64, "fp32": ctypes.c_float, "fp64": ctypes.c_double,
}  # fmt: skip


def device_pointer(x: Any) -> int:
    """The device address of a tensor-like argument (int, data_ptr(), CUDA array interface)."""
    if isinstance(x, int):
        return x
    if hasattr(x, "data_ptr"):
        return int(x.data_ptr())
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return int(cai["data"][0])
    raise LaunchError(f"cannot pass {type(x).__name__} as a device pointer")


def pack_argument(spec: ArgSpec, x: Any) -> ctypes._SimpleCData:
    if isinstance(spec.type, PointerType):
        return ctypes.c_uint64(device_pointer(x))
    assert isinstance(spec.type, ScalarType)
    name = str(spec.type)  # the IR spelling, as _CTYPES is keyed
    if name in ("fp16", "bf16"):  # rounded once from the double, as the native launcher does
        return ctypes.c_uint16(round_float_bits(float(x), *FORMATS[name]))
    ctype: Any = _CTYPES[name]
    return ctype(x)  # type: ignore[no-any-return]


def launch(
    kernel: LoadedKernel, grid: tuple[int, ...], args: tuple[Any, ...], stream: int = 0
) -> None:
    """Launch with ``args`` for the kernel's runtime parameters (test/bench helper; the runtime
    launches through launch.CudaLauncher)."""
    cu = _cu()
    params = kernel.compiled.metadata.params
    if len(args) != len(params):
        raise LaunchError(f"{kernel.compiled.name} takes {len(params)} arguments, got {len(args)}")
    values = [pack_argument(s, a) for s, a in zip(params, args)]
    ptrs = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])
    gx, gy, gz = ((*tuple(grid), 1, 1))[:3]
    threads = kernel.compiled.metadata.threads
    check(
        cu.cuLaunchKernel(
            kernel.function,
            gx,
            gy,
            gz,
            threads,
            1,
            1,
            kernel.shared,
            stream,
            ctypes.addressof(ptrs),
            0,
        ),
        "cuLaunchKernel",
    )
