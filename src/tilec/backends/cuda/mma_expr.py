"""i32 IR values with Python's integer operators, so index math written once for ints (and
tested on ints) emits the same arithmetic as LLVM IR: ``+ * ^`` and ``// %`` by powers of two."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

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

    @staticmethod
    def of(b: ir.IRBuilder, x: Operand) -> Expr:
        return x if isinstance(x, Expr) else Expr(b, ir.Constant(I32, x))

    def _v(self, x: Operand) -> ir.Value:
        return x.v if isinstance(x, Expr) else ir.Constant(I32, x)

    def __add__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 0:
            return self
        return Expr(self.b, self.b.add(self.v, self._v(o)))

    __radd__ = __add__

    def __mul__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 1:
            return self
        return Expr(self.b, self.b.mul(self.v, self._v(o)))

    __rmul__ = __mul__

    def __xor__(self, o: Operand) -> Expr:
        if isinstance(o, int) and o == 0:
            return self
        return Expr(self.b, self.b.xor(self.v, self._v(o)))

    __rxor__ = __xor__

    def __floordiv__(self, o: int) -> Expr:
        if o == 1:
            return self
        return Expr(self.b, self.b.lshr(self.v, ir.Constant(I32, _pow2_shift(o))))

    def __mod__(self, o: int) -> Expr:
        _pow2_shift(o)
        return Expr(self.b, self.b.and_(self.v, ir.Constant(I32, o - 1)))
