"""Build a kernel with the IR Builder, compile it with the CPU backend and run its entry directly.

Used before (and independently of) the runtime and launcher: arguments are packed per the CPU
kernel ABI and the program range is run on the calling thread through ctypes.
"""

from __future__ import annotations

import ctypes
import itertools
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tilec.backends import registry
from tilec.backends.target import CompileOptions
from tilec.ir import ops as O
from tilec.ir.argspec import ArgKind, ArgSpec
from tilec.ir.builder import Builder
from tilec.ir.types import PointerType, ScalarType

ENTRY = ctypes.CFUNCTYPE(
    None,
    ctypes.c_void_p,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int32,
    ctypes.c_int64,
    ctypes.c_int64,
    ctypes.c_void_p,
)

NP = {
    "fp32": np.float32,
    "fp64": np.float64,
    "fp16": np.float16,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "i1": np.bool_,
    "bf16": np.uint16,
}


def kernel(specs: Sequence[ArgSpec], body: Callable[..., None], name: str = "k") -> O.ModuleOp:
    """A module with one kernel; ``body(b, *args)`` fills it (a return is appended)."""
    m = O.ModuleOp()
    f = O.FuncOp(name, list(specs))
    m.body.append(f)
    b = Builder(f.body)
    body(b, *f.args)
    b.ret()
    return m


class Kernel:
    def __init__(self, module: O.ModuleOp, **opts: Any):
        backend = registry.get("cpu")
        self.compiled = backend.compiler.compile(
            module, backend.driver.current_target(), CompileOptions(**opts)
        )
        self.loaded = backend.driver.load(self.compiled)
        self.fn = ENTRY(self.loaded.address)

    def __call__(self, grid: int | tuple[int, ...], *args: Any, threads: int = 1) -> np.ndarray:
        """Run every program of ``grid``; returns the 4-slot status block."""
        g = (grid,) if isinstance(grid, int) else tuple(grid)
        g = (*g, 1, 1)[:3]
        packed = np.zeros(max(len(args), 1), dtype=np.uint64)
        for i, (spec, a) in enumerate(zip(self.compiled.metadata.params, args)):
            packed[i] = pack(spec, a)
        status = np.zeros(4, dtype=np.int64)
        total = g[0] * g[1] * g[2]
        if threads == 1:
            self.fn(packed.ctypes.data, g[0], g[1], g[2], 0, total, status.ctypes.data)
            return status
        # ctypes releases the GIL: the chunks really run at the same time
        bounds = [total * i // threads for i in range(threads + 1)]
        workers = [
            threading.Thread(
                target=self.fn,
                args=(packed.ctypes.data, g[0], g[1], g[2], lo, hi, status.ctypes.data),
            )
            for lo, hi in itertools.pairwise(bounds)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        return status


def pack(spec: ArgSpec, a: Any) -> int:
    t = spec.type
    if isinstance(t, PointerType):
        return 0 if a is None else int(a.ctypes.data)
    assert isinstance(t, ScalarType) and spec.kind is ArgKind.SCALAR
    if t.name == "fp32":
        return struct.unpack("<I", struct.pack("<f", a))[0]
    if t.name == "fp64":
        return struct.unpack("<Q", struct.pack("<d", a))[0]
    if t.name == "fp16":
        return struct.unpack("<H", struct.pack("<e", a))[0]
    return int(a) & ((1 << 64) - 1)


def poisoned(shape: Any, dtype: Any) -> np.ndarray:
    out = np.empty(shape, dtype=dtype)
    if np.issubdtype(out.dtype, np.floating):
        out.fill(np.nan)
    else:
        out.fill(np.iinfo(out.dtype).max if out.dtype != np.bool_ else True)
    return out


def elementwise_kernel(
    fn: Callable[..., Any], n_in: int, in_t: ScalarType, out_t: ScalarType, block: int = 256
) -> Kernel:
    """``out[i] = fn(b, x0[i], x1[i], ...)`` over a ragged 1-D range (n is the last argument)."""
    from tilec.ir import types as T
    from tilec.ir.argspec import pointer_arg, scalar_arg

    specs = [pointer_arg(f"x{i}", in_t) for i in range(n_in)]
    specs += [pointer_arg("out", out_t), scalar_arg("n", T.int32)]

    def body(b: Builder, *args: Any) -> None:
        *xs, out, n = args
        start = b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(block, T.int32))
        offs = b.binary(O.BinaryKind.ADD, b.splat(start, (block,)), b.make_range(0, block))
        mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (block,)))
        vals = [b.load(b.addptr(b.splat(x, (block,)), offs), mask) for x in xs]
        b.store(b.addptr(b.splat(out, (block,)), offs), fn(b, *vals), mask)

    return Kernel(kernel(specs, body))


def run_elementwise(k: Kernel, *arrays: np.ndarray, out_dtype: Any) -> np.ndarray:
    n = arrays[0].size
    out = poisoned(n, out_dtype)
    status = k((n + 255) // 256, *arrays, out, n)
    assert status[0] == 0
    return out
