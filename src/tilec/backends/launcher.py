"""The launcher: runs a CPU kernel over its grid and launches CUDA kernels, natively when it can.

The native path is the C extension ``tilec._launcher`` (platform/launcher/, built by CMake). When
it is missing or hidden (``TILEC_DISABLE_LAUNCHER``), a ctypes + threads fallback gives identical
results, more slowly; ``status()`` says which one is active and why. Arguments travel as one
8-byte slot each, typed by the one-letter codes of ``arg_code``.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .. import config
from ..errors import LaunchError
from ..ir import types as T
from .fallback_grid import GridRun
from .float_bits import FORMATS, round_float_bits

Dims = tuple[int, int, int]

MAX_ARGS = 512  # kernel parameters per launch (4 KiB of slots); the native module agrees
MAX_THREADS = 512  # threads one CPU grid run uses at most; the native module agrees

_CODES: dict[T.ScalarType, bytes] = {
    T.int1: b"?", T.int8: b"b", T.int16: b"h", T.int32: b"i", T.int64: b"q",
    T.uint8: b"B", T.uint16: b"H", T.uint32: b"I", T.uint64: b"Q",
    T.float16: b"e", T.bfloat16: b"E", T.float32: b"f", T.float64: b"d",
}  # fmt: skip
POINTER_CODE = b"P"

# Inclusive integer range of every integer code (pointers are 64-bit unsigned addresses).
_INT_RANGE: dict[str, tuple[int, int]] = {
    "?": (0, 1), "b": (-(2**7), 2**7 - 1), "h": (-(2**15), 2**15 - 1),
    "i": (-(2**31), 2**31 - 1), "q": (-(2**63), 2**63 - 1), "B": (0, 2**8 - 1),
    "H": (0, 2**16 - 1), "I": (0, 2**32 - 1), "Q": (0, 2**64 - 1), "P": (0, 2**64 - 1),
}  # fmt: skip
# (exponent bits, mantissa bits) of the sub-double float codes.
_FLOAT_FORMAT = {
    code: FORMATS[name] for code, name in (("e", "fp16"), ("E", "bf16"), ("f", "fp32"))
}


@dataclass(frozen=True)
class LauncherStatus:
    """Which launcher is active: ``native`` or the fallback, and why."""

    native: bool
    reason: str


def arg_code(t: T.Type | None) -> bytes:
    """The one-byte type code with which a kernel parameter of IR type ``t`` is packed."""
    if isinstance(t, T.PointerType):
        return POINTER_CODE
    if isinstance(t, T.ScalarType) and t in _CODES:
        return _CODES[t]
    raise LaunchError(f"no launch type code for a parameter of type {t}")


def arg_codes(types: Iterable[T.Type | None]) -> bytes:
    """The type codes of a kernel's runtime parameters, in order."""
    return b"".join(arg_code(t) for t in types)


# --- the pure-Python fallback --------------------------------------------------------------


def _slot(code: str, value: Any, index: int) -> int:
    """One argument as the unsigned 64-bit value of its slot."""
    try:
        if code in _FLOAT_FORMAT or code == "d":
            if isinstance(value, (str, bytes)):  # float() parses text; the C core does not
                raise TypeError(value)
            if code == "d":
                return int(struct.unpack("<Q", struct.pack("<d", float(value)))[0])
            return round_float_bits(float(value), *_FLOAT_FORMAT[code])
        lo, hi = _INT_RANGE[code]
        number = int(value.__index__())
    except KeyError:
        raise LaunchError(f"argument {index} has an unknown type code {code!r}") from None
    except (TypeError, ValueError, AttributeError, OverflowError):
        number, lo, hi = 0, 1, 0  # an empty range: reported below
    if not lo <= number <= hi:
        raise LaunchError(
            f"argument {index} ({value!r}) does not fit its parameter type (code {code!r})"
        )
    return number & (2**64 - 1)


def _slots(codes: bytes, args: tuple[Any, ...]) -> ctypes.Array[ctypes.c_uint64]:
    if not isinstance(codes, bytes) or not isinstance(args, tuple):
        raise LaunchError("type codes must be bytes and kernel arguments a tuple")
    if len(codes) != len(args) or len(args) > MAX_ARGS:
        raise LaunchError(f"{len(args)} arguments for {len(codes)} type codes (at most {MAX_ARGS})")
    values = [_slot(chr(c), a, i) for i, (c, a) in enumerate(zip(codes, args))]
    return (ctypes.c_uint64 * max(len(values), 1))(*values)


def _dims(value: Any, what: str) -> Dims:
    ok = isinstance(value, tuple) and len(value) == 3
    ok = ok and all(hasattr(v, "__index__") and 0 <= v.__index__() < 2**31 for v in value)
    if not ok:
        raise LaunchError(f"{what} must hold 3 ints in 0..2**31-1, got {value!r}")
    return (value[0].__index__(), value[1].__index__(), value[2].__index__())


def _address(value: Any, what: str) -> int:
    if not hasattr(value, "__index__") or not 0 <= value.__index__() < 2**64:
        raise LaunchError(f"{what} must be an address (a non-negative int), got {value!r}")
    return int(value.__index__())


_ENTRY = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
    ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
)  # fmt: skip


class _Fallback:
    """ctypes + Python threads (fallback_grid): ctypes drops the GIL during each call."""

    _cuda: Any = None

    def run_cpu_grid(
        self, fn_address: int, args_address: int, grid: Dims, num_threads: int, status: int
    ) -> None:
        fn, args = _address(fn_address, "fn"), _address(args_address, "args")
        gx, gy, gz = _dims(grid, "grid")
        status = _address(status, "status")
        if not hasattr(num_threads, "__index__") or num_threads.__index__() < 1:
            raise LaunchError(f"num_threads must be an int >= 1, got {num_threads!r}")
        if not fn or not status:
            raise LaunchError("run_cpu_grid needs a function and a status address")
        total = gx * gy * gz
        if total == 0:
            return
        threads = min(num_threads.__index__(), MAX_THREADS, total)
        GridRun(_ENTRY(fn), args, (gx, gy, gz), status).run(threads)

    def pack_args(self, codes: bytes, args: tuple[Any, ...], address: int) -> None:
        slots = _slots(codes, args)
        target = _address(address, "address")
        if args and not target:
            raise LaunchError("pack_args needs a destination address")
        ctypes.memmove(target, slots, 8 * len(args))

    def load_cuda(self, path: str | None) -> None:
        if self._cuda is not None:
            return
        names = [path] if path else _default_cuda_names()
        reason = "no CUDA driver library on this platform"
        for name in names:
            try:
                lib = ctypes.CDLL(name)
            except OSError as exc:
                reason = f"cannot open {name}: {exc}"
                continue
            if not hasattr(lib, "cuLaunchKernel"):
                reason = f"{name} has no cuLaunchKernel"
                continue
            lib.cuLaunchKernel.restype = ctypes.c_int
            lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
                ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p
            ]  # fmt: skip
            type(self)._cuda = lib
            return
        raise LaunchError(f"cannot load the CUDA driver: {reason}")

    def launch_cuda(
        self, function: int, grid: Dims, block: Dims, shared: int, stream: int,
        codes: bytes, args: tuple[Any, ...],
    ) -> None:  # fmt: skip
        f, s = _address(function, "function"), _address(stream, "stream")
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        if not isinstance(shared, int) or not 0 <= shared < 2**32:
            raise LaunchError(f"shared memory must be an int in 0..2**32-1, got {shared!r}")
        slots = _slots(codes, args)
        self.load_cuda(None)
        if 0 in grid:
            return
        base = ctypes.addressof(slots)
        params = (ctypes.c_void_p * max(len(args), 1))(*(base + 8 * i for i in range(len(args))))
        rc = self._cuda.cuLaunchKernel(f, *grid, *block, shared, s, params, None)
        if rc != 0:
            raise LaunchError(
                f"cuLaunchKernel failed: {_cuda_error_name(self._cuda, rc)} ({rc})", rc
            )


def _default_cuda_names() -> list[str]:
    if sys.platform == "win32":
        return ["nvcuda.dll"]
    if sys.platform == "darwin":
        return []
    return ["libcuda.so.1", "libcuda.so"]


def _cuda_error_name(lib: Any, rc: int) -> str:
    name = ctypes.c_char_p()
    if lib.cuGetErrorName(ctypes.c_int(rc), ctypes.byref(name)) == 0 and name.value:
        return name.value.decode()
    return "CUDA_ERROR_UNKNOWN"


# --- choosing the implementation ------------------------------------------------------------


_chosen: dict[bool, tuple[Any, LauncherStatus]] = {}


def _choose() -> tuple[Any, LauncherStatus]:
    disabled = config.get().disable_launcher
    found = _chosen.get(disabled)
    if found is None:
        found = _chosen[disabled] = _select(disabled)
    return found


# Python cannot resume after a hardware fault in code it called through ctypes, except on
# Windows, where ctypes reports it as an OSError (fallback_grid makes that a LaunchError).
_UNTRAPPED = (
    ""
    if sys.platform == "win32"
    else "; a CPU kernel that accesses memory outside its arrays ends the process (only the "
    "native launcher turns that into a LaunchError; see docs/robustness.md)"
)


def _select(disabled: bool) -> tuple[Any, LauncherStatus]:
    if disabled:
        why = "the native launcher is disabled (TILEC_DISABLE_LAUNCHER); using ctypes + threads"
        return _Fallback(), LauncherStatus(False, why + _UNTRAPPED)
    try:
        # optional: the native extension may be missing (a build without a C compiler)
        from .. import _launcher  # type: ignore[attr-defined]
    except ImportError as exc:
        why = (
            f"tilec._launcher is not available ({exc}); using ctypes + threads, with slower "
            f"launches{_UNTRAPPED}. Reinstall tilec with a C compiler present to build it."
        )
        return _Fallback(), LauncherStatus(False, why)
    return _launcher, LauncherStatus(True, f"native launcher {_launcher.__file__}")


def status() -> LauncherStatus:
    """Which launcher ``run_cpu_grid`` and ``launch_cuda`` use, and why."""
    return _choose()[1]


def run_cpu_grid(
    fn_address: int, args_address: int, grid: Dims, num_threads: int, status_address: int
) -> None:
    """Run CPU kernel entry ``fn_address`` over ``grid`` on up to ``num_threads`` threads.

    ``args_address`` points at the packed argument slots, ``status_address`` at 4 zeroed int64
    (see the CPU kernel ABI). The GIL is released while programs run. With the native launcher a
    hardware fault in kernel code (a bad address, an integer division by zero) stops the grid and
    raises LaunchError, like CUDA's illegal memory access; the ctypes fallback can only on Windows.
    Ctrl-C stops the grid between programs and raises KeyboardInterrupt once no thread runs one.
    """
    _choose()[0].run_cpu_grid(fn_address, args_address, grid, num_threads, status_address)


def launch_cuda(
    function: int,
    grid: Dims,
    block: Dims,
    shared: int,
    stream: int,
    codes: bytes,
    args: tuple[Any, ...],
) -> None:
    """Pack ``args`` per ``codes`` and call cuLaunchKernel; raise LaunchError naming the CUresult."""
    cuda_launcher()(function, grid, block, shared, stream, codes, args)


def pack_args(codes: bytes, args: tuple[Any, ...], address: int) -> None:
    """Write ``len(args)`` 8-byte argument slots at ``address`` (the CPU kernel's ``args``)."""
    _choose()[0].pack_args(codes, args, address)


def native_module() -> Any | None:
    """The native launcher module when it is the one in use (its Dispatcher and Plan types
    run warm launches in C), else None."""
    impl, state = _choose()
    return impl if state.native and hasattr(impl, "Dispatcher") else None


def cpu_grid_runner() -> Callable[[int, int, Dims, int, int], None]:
    """The active implementation's ``run_cpu_grid`` itself, for a hot path to keep."""
    return _choose()[0].run_cpu_grid  # type: ignore[no-any-return]


_cuda_loaded: set[bool] = set()  # the implementations (native or not) that loaded libcuda


def cuda_launcher() -> Callable[..., None]:
    """The active implementation's ``launch_cuda`` itself, for a hot path to keep. Loads
    libcuda first (``TILEC_LIBCUDA_PATH``, else the platform's default names)."""
    impl, state = _choose()
    if state.native not in _cuda_loaded:
        impl.load_cuda(config.get().libcuda_path)
        _cuda_loaded.add(state.native)
    return impl.launch_cuda  # type: ignore[no-any-return]


def threads_for(total_programs: int, requested: int = 0) -> int:
    """Threads for a grid of ``total_programs``: ``requested`` (or ``TILEC_NUM_THREADS``, or
    every core) capped by the program count."""
    want = requested or config.get().num_threads or _cpu_count()
    return max(1, min(want, total_programs, MAX_THREADS))


def _cpu_count() -> int:
    count = os.process_cpu_count() if hasattr(os, "process_cpu_count") else None
    if count is None and hasattr(os, "sched_getaffinity"):
        count = len(os.sched_getaffinity(0))
    return count or os.cpu_count() or 1


__all__ = [
    "MAX_ARGS",
    "LauncherStatus",
    "arg_code",
    "arg_codes",
    "cpu_grid_runner",
    "cuda_launcher",
    "launch_cuda",
    "native_module",
    "pack_args",
    "round_float_bits",
    "run_cpu_grid",
    "status",
    "threads_for",
]
