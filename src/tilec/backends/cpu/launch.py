"""Launching a CPU kernel: pack the runtime values into 8-byte slots and run the grid on cores.

The arguments are packed with a struct precompiled per kernel (the CPU kernel ABI: one 8-byte
slot per runtime parameter, then a 4-word status block a failed ``tl.device_assert`` writes)
and the launcher runs every program of the grid on up to ``num_threads`` threads. The native
launcher's Plan lets its dispatcher do the same from C on a warm launch.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import os
import struct
from collections.abc import Callable, Sequence
from typing import Any

from ... import config
from ...errors import UnsupportedFeature, UsageError
from ...ir import types as ir
from ...ir.argspec import ArgKind, ArgSpec
from ...ir.bounds import RECORD_WORDS
from .. import launcher
from ..artifacts import CompiledKernel, KernelMetadata, Stage
from ..base import Grid3, assert_error, generated_launch, runtime_indices
from ..float_bits import FORMATS, round_float_bits
from . import occupancy


def slot_format(spec: ArgSpec) -> str:
    """The struct format of one 8-byte argument slot (little-endian, CPU kernel ABI)."""
    t = spec.type
    if spec.kind is ArgKind.POINTER:
        return "Q"
    assert isinstance(t, ir.ScalarType)
    if t.kind is ir.Kind.FLOAT:
        # bf16 has no struct code: its slot takes the bits, rounded from the number (_bf16)
        formats = {"fp32": "f4x", "fp64": "d", "fp16": "e6x", "bf16": "H6x"}
        if t.name not in formats:
            raise UnsupportedFeature(f"scalar kernel arguments of type {t} ({spec.name})")
        return formats[t.name]
    return "Q" if t.kind is ir.Kind.UINT else "q"


def _is_bf16(spec: ArgSpec) -> bool:
    return isinstance(spec.type, ir.ScalarType) and spec.type.name == "bf16"


def _bf16(value: Any) -> int:
    """A bf16 scalar argument's slot: the number rounded once to bf16's bits."""
    return round_float_bits(float(value), *FORMATS["bf16"])


def with_host_figures(compiled: CompiledKernel) -> KernelMetadata:
    """The metadata with CPU figures where the compiler has none (occupancy.py): ``n_regs`` is
    the target's SIMD register count, ``shared`` the bytes of tile buffers on the stack."""
    meta = compiled.metadata
    if meta.n_regs and meta.shared:
        return meta
    llir = compiled.asm.get(Stage.LLIR.value, "")
    return dataclasses.replace(
        meta,
        n_regs=meta.n_regs or occupancy.vector_registers(meta.target),
        shared=meta.shared or occupancy.stack_bytes(llir if isinstance(llir, str) else ""),
    )


class CpuLauncher:
    """Runs a loaded CPU kernel (anything with an entry ``address`` of the CPU kernel ABI)."""

    def __init__(self, compiled: CompiledKernel, loaded: Any, all_params: Sequence[ArgSpec]):
        self.compiled = compiled
        self.params = tuple(all_params)
        self._pick = runtime_indices(all_params)
        runtime = [all_params[i] for i in self._pick]
        self._struct = struct.Struct("<" + "".join(slot_format(p) for p in runtime))
        self._slots = len(runtime)
        self._address = int(loaded.address)
        self._run = launcher.cpu_grid_runner()  # skips the module-level dispatch (0.1 µs)
        self._threads = config.get().num_threads or os.cpu_count() or 1
        self._pool: list[tuple[Any, int, int]] = []
        self.launch = self._generate_launch(len(all_params))
        self.plan: Any = None
        native = launcher.native_module()
        if native is not None and compiled.metadata.bounds is None:
            # a bounds-checked kernel never takes the native dispatcher: it passes no extents
            codes = launcher.arg_codes(p.type for p in runtime)
            self.plan = native.Plan(
                True, self._address, (1, 1, 1), 0, self._threads, codes, self._pick,
                None, None, None, None, None,
            )  # fmt: skip

    @functools.cached_property
    def metadata(self) -> KernelMetadata:
        return with_host_figures(self.compiled)

    @property
    def name(self) -> str:
        return self.compiled.metadata.name

    def _new_buffer(self) -> tuple[Any, int, int]:
        buf = (ctypes.c_uint64 * (self._slots + 4))()  # argument slots, then the status block
        address = ctypes.addressof(buf)
        return buf, address, address + 8 * self._slots

    def _generate_launch(self, n: int) -> Callable[..., None]:
        """This kernel's launch function: only the runtime values are packed."""
        values = ", ".join(f"v{i}" for i in range(n))
        picked = "".join(f", {self._slot_value(i)}" for i in self._pick)
        consts = {
            "_bf16": _bf16,
            "_pop": self._pool.pop, "_push": self._pool.append, "_new": self._new_buffer,
            "_pack": self._struct.pack_into, "_run": self._run, "_address": self._address, "_threads": self._threads,
            "_asserts": bool(self.compiled.metadata.asserts), "_slots": self._slots,
            "_raise_assert": self._raise_assert, "_pack_error": self._pack_error,
        }  # fmt: skip
        return generated_launch(f"<tilec cpu launch {self.name}>", n, consts, [
            "try:  # list.pop is atomic: threads never share an argument buffer",
            "    entry = _pop()",
            "except IndexError:",
            "    entry = _new()",
            "buf = entry[0]",
            "try:",
            f"    _pack(buf, 0{picked})",
            "except (ValueError, OverflowError) as exc:  # struct.error is a ValueError",
            f"    raise _pack_error(({values}{',' if n == 1 else ''}), exc) from None",
            "_run(_address, entry[1], g, _threads, entry[2])",
            "if _asserts and buf[_slots]:",
            "    _raise_assert(buf, g)",
            "_push(entry)",
        ])  # fmt: skip

    def _slot_value(self, i: int) -> str:
        """The generated code's expression for parameter ``i``'s slot value."""
        return f"_bf16(v{i})" if _is_bf16(self.params[i]) else f"v{i}"

    def _pack_error(self, values: tuple[Any, ...], exc: Exception) -> UsageError:
        for i in self._pick:
            try:
                value = _bf16(values[i]) if _is_bf16(self.params[i]) else values[i]
                struct.pack("<" + slot_format(self.params[i]), value)
            except (struct.error, OverflowError, TypeError, ValueError):
                p = self.params[i]
                return UsageError(f"{self.name}: {p.name}={values[i]!r} does not fit in {p.type}")
        return UsageError(f"{self.name}: cannot pack the arguments ({exc})")

    def _raise_assert(self, buf: Any, grid: Grid3) -> None:
        index, pid = buf[self._slots] - 1, buf[self._slots + 1]
        for i in range(4):  # the status block is zero again before the buffer is reused
            buf[self._slots + i] = 0
        self._pool.append((buf, ctypes.addressof(buf), ctypes.addressof(buf) + 8 * self._slots))
        raise assert_error(self.metadata, int(index), int(pid), grid)

    def run_checked(
        self, grid: Grid3, runtime: tuple[Any, ...], extents: Sequence[int]
    ) -> tuple[int, int, int]:
        """The kernel with ``lo, hi`` slots, the record (its status block) and scratch."""
        info = self.compiled.metadata.bounds
        assert info is not None
        n = len(runtime) + 2 * len(info.pointers) + 1 + info.scratch
        buf = (ctypes.c_uint64 * (n + RECORD_WORDS))()
        status = ctypes.addressof(buf) + 8 * n
        scratch = status + 8 * (RECORD_WORDS - 1)
        hidden = [*extents, status, *[scratch] * info.scratch]
        codes = launcher.arg_codes(self.params[i].type for i in self._pick)
        codes += b"Q" * len(hidden)
        launcher.pack_args(codes, (*runtime, *hidden), ctypes.addressof(buf))
        self._run(self._address, ctypes.addressof(buf), grid, self._threads, status)
        return (int(buf[n]), int(buf[n + 1]), int(buf[n + 2]))
