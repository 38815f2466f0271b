"""Run CUDA lowering helpers on every thread of a block at once, in NumPy (offline tests).

A value is an array over the block's threads. :class:`Builder` stands in for llvmlite's
IRBuilder (the integer, select and memory operations the helpers use), :class:`Block` for the
Lowering (lanes, warps, shared memory, thread coordinates) and :class:`Target` for its
TargetInfo (the warp shuffle). Stores of one address by several threads must agree, or the model raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir

from tilec.backends.cuda.layout import WARP_SIZE, Layout, register_keys, thread_index


class Reg(np.ndarray):
    """One register on every thread; ``type`` as llvmlite spells it (i1 or i32)."""

    @property
    def type(self) -> ir.Type:
        return ir.IntType(1) if self.dtype == np.bool_ else ir.IntType(32)


def reg(x: Any) -> Reg:
    return np.asarray(x).view(Reg)


@dataclass(frozen=True)
class Pointer:
    byte: np.ndarray  # per-thread byte address in shared memory
    size: int  # element size


def _bytes(t: ir.Type) -> int:
    if isinstance(t, ir.IntType):
        return max(t.width // 8, 1)
    return {"half": 2, "bfloat": 2, "float": 4, "double": 8}[str(t)]


class Builder:
    def __init__(self, threads: int) -> None:
        self.threads = threads
        self.memory: dict[int, Any] = {}

    def v(self, x: Any) -> Reg:
        if isinstance(x, ir.Constant):
            return reg(np.full(self.threads, int(x.constant), np.int64))
        return reg(x)

    def add(self, a: Any, b: Any) -> np.ndarray:
        return self.v(a) + self.v(b)

    def sub(self, a: Any, b: Any) -> np.ndarray:
        return self.v(a) - self.v(b)

    def mul(self, a: Any, b: Any) -> np.ndarray:
        return self.v(a) * self.v(b)

    def udiv(self, a: Any, b: Any) -> np.ndarray:
        return self.v(a) // self.v(b)

    def urem(self, a: Any, b: Any) -> np.ndarray:
        return self.v(a) % self.v(b)

    def and_(self, a: Any, b: Any) -> np.ndarray:
        return np.bitwise_and(self.v(a), self.v(b))

    def or_(self, a: Any, b: Any) -> np.ndarray:
        return np.bitwise_or(self.v(a), self.v(b))

    def not_(self, a: Any) -> np.ndarray:
        return ~self.v(a)

    def icmp_unsigned(self, op: str, a: Any, b: Any) -> np.ndarray:
        x, y = self.v(a), self.v(b)
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]

    def select(self, c: Any, a: Any, b: Any) -> np.ndarray:
        return reg(np.where(self.v(c), self.v(a), self.v(b)))

    def zext(self, a: Any, _: ir.Type) -> np.ndarray:
        return reg(self.v(a).astype(np.int64))

    def trunc(self, a: Any, t: ir.Type) -> np.ndarray:
        return self.v(a) != 0 if t == ir.IntType(1) else self.v(a)

    def gep(self, p: Pointer, idx: list[Any], source_etype: ir.Type) -> Pointer:
        size = _bytes(source_etype)
        return Pointer(p.byte + self.v(idx[0]) * size, size)

    def store(self, value: Any, p: Pointer) -> None:
        for t, (addr, x) in enumerate(zip(p.byte.tolist(), self.v(value).tolist())):
            if self.memory.setdefault(addr, x) != x:
                raise AssertionError(f"thread {t} stores {x} over {self.memory[addr]} at {addr}")

    def load(self, p: Pointer, typ: ir.Type) -> np.ndarray:
        return reg(np.array([self.memory[a] for a in p.byte.tolist()], np.int64))


def shuffle_xor(b: Builder, v: np.ndarray, lane_mask: int) -> np.ndarray:
    t = np.arange(b.threads)
    return reg(v[(t & ~(WARP_SIZE - 1)) | ((t & (WARP_SIZE - 1)) ^ lane_mask)])


class Target:
    """The parts of TargetInfo the helpers use."""

    warp_size = WARP_SIZE

    def shuffle_xor(self, b: Builder, v: np.ndarray, lane_mask: int) -> np.ndarray:
        return shuffle_xor(b, v, lane_mask)


class Block:
    """The parts of Lowering the helpers use, for ``num_warps`` warps."""

    def __init__(self, num_warps: int) -> None:
        self.num_warps = num_warps
        self.target = Target()
        threads = num_warps * WARP_SIZE
        self.b = Builder(threads)
        tid = np.arange(threads)
        self.lane, self.warp = reg(tid % WARP_SIZE), reg(tid // WARP_SIZE)

    def keys(self, layout: Layout, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
        return register_keys(layout, shape)

    def smem(self, nbytes: int) -> Pointer:
        self.b.memory = {}
        return Pointer(np.zeros(self.b.threads, np.int64), 1)

    def barrier(self) -> None:
        pass  # every thread runs each operation before the next one starts

    def coord(self, layout: Layout, shape: tuple[int, ...], key: tuple[int, ...]) -> list[Any]:
        out = []
        for dm, n, i in zip(layout.dim_maps(), shape, key):
            t = np.array([thread_index(dm, ln, w) for ln, w in zip(self.lane, self.warp)])
            off = dm.offset(i, n)
            out.append(
                np.full_like(t, off % n) if dm.distinct_threads(n) == 1 else (t * dm.spt + off) % n
            )
        return out

    def linear(self, coords: list[Any], shape: tuple[int, ...]) -> np.ndarray:
        idx, stride = np.zeros(self.b.threads, np.int64), 1
        for c, n in reversed(list(zip(coords, shape))):
            idx = idx + self.b.v(c) * stride
            stride *= n
        return idx
