"""A small helper for writing tile IR kernels by hand in the CUDA backend's tests.

Arithmetic broadcasts like tl (scalars splat, size-1 dimensions broadcast); ``reduce`` and
``scan`` build the combine region from a BinaryKind. Used until kernels come from the frontend.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import ArgSpec
from tilec.ir.builder import Builder
from tilec.ir.core import Value
from tilec.ir.verify import verify

K = O.BinaryKind
C = O.CompareKind


class KernelBuilder:
    def __init__(self, name: str, specs: Sequence[ArgSpec]) -> None:
        self.module = O.ModuleOp()
        self.func = O.FuncOp(name, specs)
        self.module.body.append(self.func)
        self.b = Builder(self.func.body)
        self.arg = {s.name: v for s, v in zip(specs, self.func.args)}

    # -- values --------------------------------------------------------------------------
    def c(self, value: float | int, t: T.ScalarType = T.int32) -> Value:
        return self.b.constant(value, t)

    def full(self, shape: Sequence[int], value: float | int, t: T.ScalarType = T.float32) -> Value:
        return self.b.constant(value, T.TileType(tuple(shape), t))

    def arange(self, n: int, start: int = 0) -> Value:
        return self.b.make_range(start, start + n)

    def pid(self, axis: int = 0) -> Value:
        return self.b.program_id(axis)

    def _pair(self, a: Value, b: Value) -> tuple[Value, Value]:
        sa, sb = T.shape_of(a.type), T.shape_of(b.type)
        if sa == sb:
            return a, b
        if not sa:
            return self.b.splat(a, sb), b
        if not sb:
            return a, self.b.splat(b, sa)
        out = tuple(max(x, y) for x, y in zip(sa, sb))
        a = a if sa == out else self.b.broadcast(a, out)
        b = b if sb == out else self.b.broadcast(b, out)
        return a, b

    def bin(self, kind: O.BinaryKind, a: Value, b: Value, **kw: bool) -> Value:
        a, b = self._pair(a, b)
        return self.b.binary(kind, a, b, **kw)

    def add(self, a: Value, b: Value) -> Value:
        if isinstance(T.element_of(a.type), T.PointerType):
            a, b = self._pair(a, b)
            return self.b.addptr(a, b)
        return self.bin(K.ADD, a, b)

    def sub(self, a: Value, b: Value) -> Value:
        return self.bin(K.SUB, a, b)

    def mul(self, a: Value, b: Value) -> Value:
        return self.bin(K.MUL, a, b)

    def div(self, a: Value, b: Value) -> Value:
        return self.bin(K.DIV, a, b)

    def cmp(self, kind: O.CompareKind, a: Value, b: Value) -> Value:
        a, b = self._pair(a, b)
        return self.b.compare(kind, a, b)

    def where(self, cond: Value, a: Value, b: Value) -> Value:
        a, b = self._pair(a, b)
        cond, a = self._pair(cond, a)
        return self.b.select(cond, a, b)

    def math(self, fn: str, *xs: Value, fast: bool = False) -> Value:
        return self.b.math(fn, *xs, fast=fast)

    def cast(self, x: Value, t: T.ScalarType) -> Value:
        return self.b.cast(x, T.with_element(x.type, t))

    def row(self, x: Value) -> Value:  # x[None, :]
        return self.b.expand_dims(x, 0)

    def col(self, x: Value) -> Value:  # x[:, None]
        return self.b.expand_dims(x, 1)

    # -- memory ----------------------------------------------------------------------------
    def load(
        self, ptr: Value, mask: Value | None = None, other: float | int | None = None
    ) -> Value:
        if mask is not None:
            ptr, mask = self._pair(ptr, mask)
        other_v = None
        if other is not None:
            elem = T.element_of(ptr.type)
            assert isinstance(elem, T.PointerType) and isinstance(elem.element, T.ScalarType)
            shape = T.shape_of(ptr.type)
            other_v = self.b.constant(other, T.with_shape(elem.element, shape))
        return self.b.load(ptr, mask, other_v)

    def store(self, ptr: Value, value: Value, mask: Value | None = None) -> None:
        ptr, value = self._pair(ptr, value)
        if mask is not None:
            ptr, mask = self._pair(ptr, mask)
        self.b.store(ptr, value, mask)

    # -- reductions --------------------------------------------------------------------------
    def reduce(self, x: Value, axis: int, kind: O.BinaryKind, propagate_nan: bool = False) -> Value:
        op = self.b.reduce([x], axis)
        with self.b.at_end_of(op.combine):
            a, c = op.combine.args
            self.b.yield_([self.b.binary(kind, a, c, propagate_nan=propagate_nan)])
        return op.result

    def scan(self, x: Value, axis: int, kind: O.BinaryKind, reverse: bool = False) -> Value:
        op = self.b.scan([x], axis, reverse)
        with self.b.at_end_of(op.combine):
            a, c = op.combine.args
            self.b.yield_([self.b.binary(kind, a, c)])
        return op.result

    def finish(self) -> O.ModuleOp:
        self.b.ret()
        verify(self.module)
        return self.module
