"""i32 IR values with Python's integer operators, so index math written once for ints (and
tested on ints) emits the same arithmetic as LLVM IR: ``+ * ^`` and ``// %`` by powers of two.

With a ``memo`` (a dict the caller keeps for one builder), an operation already emitted on the
same operands returns the earlier value: address math that depends on the thread only is then
emitted once, in the prologue, for every ldmatrix and copy that shares a part of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

from llvmlite import ir

from .types import I32

Operand = Union["Expr", int]


def _pow2_shift(n: int) -> int:
    if n <= 0 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


@dataclass(frozen=True)
class Expr:
    b: ir.IRBuilder
    v: ir.Value
    memo: dict[Any, ir.Value] | None = field(default=None, compare=False, hash=False)

    @staticmethod
    def of(b: ir.IRBuilder, x: Operand) -> Expr:
        return x if isinstance(x, Expr) else Expr(b, ir.Constant(I32, x))

    def _v(self, x: Operand) -> ir.Value:
        return x.v if isinstance(x, Expr) else ir.Constant(I32, x)

    def _emit(self, op: str, o: Operand, make: Callable[[], ir.Value]) -> Expr:
        if self.memo is None:
            return Expr(self.b, make())
        key = (op, id(self.v), o if isinstance(o, int) else id(o.v))
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = make()
        return Expr(self.b, got, self.memo)

    def __add__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 0:
            return self
        return self._emit("add", o, lambda: self.b.add(self.v, self._v(o)))

    __radd__ = __add__

    def __mul__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 1:
            return self
        return self._emit("mul", o, lambda: self.b.mul(self.v, self._v(o)))

    __rmul__ = __mul__

    def __xor__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 0:
            return self
        return self._emit("xor", o, lambda: self.b.xor(self.v, self._v(o)))

    __rxor__ = __xor__

    def __floordiv__(self, o: int) -> Expr:
        if o == 1:
            return self
        shift = ir.Constant(I32, _pow2_shift(o))
        return self._emit("lshr", o, lambda: self.b.lshr(self.v, shift))

    def __mod__(self, o: int) -> Expr:
        _pow2_shift(o)
        return self._emit("and", o, lambda: self.b.and_(self.v, ir.Constant(I32, o - 1)))
