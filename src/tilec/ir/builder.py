"""Builder: inserts ops at an insertion point, stamping each with the current source location."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

from ..source import SourceLoc
from . import ops as O
from .core import Block, Op, Value
from .types import Type

OpT = TypeVar("OpT", bound=Op)


class Builder:
    def __init__(self, block: Block | None = None, loc: SourceLoc | None = None):
        self.block = block
        self.index: int | None = None  # None: append at the end of the block
        self.loc = loc

    # -- insertion point ------------------------------------------------------------------
    def set_insertion_point_to_end(self, block: Block) -> None:
        self.block, self.index = block, None

    def set_insertion_point_before(self, op: Op) -> None:
        assert op.parent is not None
        self.block, self.index = op.parent, op.parent.ops.index(op)

    @contextlib.contextmanager
    def at_end_of(self, block: Block) -> Iterator[Builder]:
        saved = (self.block, self.index)
        self.set_insertion_point_to_end(block)
        try:
            yield self
        finally:
            self.block, self.index = saved

    @contextlib.contextmanager
    def at_loc(self, loc: SourceLoc | None) -> Iterator[Builder]:
        saved = self.loc
        self.loc = loc or saved
        try:
            yield self
        finally:
            self.loc = saved

    def insert(self, op: OpT) -> OpT:
        if op.loc.line == 0 and self.loc is not None:
            op.loc = self.loc
        assert self.block is not None, "builder has no insertion point"
        if self.index is None:
            self.block.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    # -- one method per op (results returned as Values) -------------------------------------
    def constant(self, value: bool | int | float, type: Type) -> Value:
        return self.insert(O.ConstantOp(value, type, self.loc)).result

    def program_id(self, axis: int) -> Value:
        return self.insert(O.ProgramIdOp(axis, self.loc)).result

    def num_programs(self, axis: int) -> Value:
        return self.insert(O.NumProgramsOp(axis, self.loc)).result

    def make_range(self, start: int, end: int) -> Value:
        return self.insert(O.MakeRangeOp(start, end, self.loc)).result

    def binary(
        self,
        kind: O.BinaryKind,
        a: Value,
        b: Value,
        propagate_nan: bool = False,
        fast: bool = False,
    ) -> Value:
        return self.insert(O.BinaryOp(kind, a, b, self.loc, propagate_nan, fast)).result

    def compare(self, kind: O.CompareKind, a: Value, b: Value) -> Value:
        return self.insert(O.CompareOp(kind, a, b, self.loc)).result

    def math(self, fn: str, *operands: Value, fast: bool = False) -> Value:
        return self.insert(O.MathOp(fn, list(operands), self.loc, fast)).result

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self.insert(O.SelectOp(cond, a, b, self.loc)).result

    def cast(self, value: Value, to: Type, rounding: O.Rounding = O.Rounding.RTNE) -> Value:
        return self.insert(O.CastOp(value, to, self.loc, rounding)).result

    def bitcast(self, value: Value, to: Type) -> Value:
        return self.insert(O.BitcastOp(value, to, self.loc)).result

    def splat(self, value: Value, shape: Sequence[int]) -> Value:
        return self.insert(O.SplatOp(value, tuple(shape), self.loc)).result

    def broadcast(self, value: Value, shape: Sequence[int]) -> Value:
        return self.insert(O.BroadcastOp(value, tuple(shape), self.loc)).result

    def expand_dims(self, value: Value, axis: int) -> Value:
        return self.insert(O.ExpandDimsOp(value, axis, self.loc)).result

    def reshape(self, value: Value, shape: Sequence[int], can_reorder: bool = False) -> Value:
        return self.insert(O.ReshapeOp(value, tuple(shape), self.loc, can_reorder)).result

    def trans(self, value: Value, perm: Sequence[int]) -> Value:
        return self.insert(O.TransOp(value, tuple(perm), self.loc)).result

    def join(self, a: Value, b: Value) -> Value:
        return self.insert(O.JoinOp(a, b, self.loc)).result

    def split(self, value: Value) -> tuple[Value, Value]:
        op = self.insert(O.SplitOp(value, self.loc))
        return op.results[0], op.results[1]

    def cat(self, a: Value, b: Value) -> Value:
        return self.insert(O.CatOp(a, b, self.loc)).result

    def flip(self, value: Value, axis: int) -> Value:
        return self.insert(O.FlipOp(value, axis, self.loc)).result

    def addptr(self, ptr: Value, offset: Value) -> Value:
        return self.insert(O.AddPtrOp(ptr, offset, self.loc)).result

    def load(
        self,
        ptr: Value,
        mask: Value | None = None,
        other: Value | None = None,
        cache: str = "",
        eviction: str = "",
        volatile: bool = False,
    ) -> Value:
        return self.insert(O.LoadOp(ptr, mask, other, self.loc, cache, eviction, volatile)).result

    def store(
        self,
        ptr: Value,
        value: Value,
        mask: Value | None = None,
        cache: str = "",
        eviction: str = "",
    ) -> O.StoreOp:
        return self.insert(O.StoreOp(ptr, value, mask, self.loc, cache, eviction))

    def atomic_rmw(
        self,
        kind: O.AtomicKind,
        ptr: Value,
        value: Value,
        mask: Value | None = None,
        ordering: O.Ordering = O.DEFAULT_ORDERING,
    ) -> Value:
        return self.insert(O.AtomicRMWOp(kind, ptr, value, mask, self.loc, ordering)).result

    def atomic_cas(
        self, ptr: Value, cmp: Value, value: Value, ordering: O.Ordering = O.DEFAULT_ORDERING
    ) -> Value:
        return self.insert(O.AtomicCASOp(ptr, cmp, value, self.loc, ordering)).result

    def dot(
        self,
        a: Value,
        b: Value,
        acc: Value,
        input_precision: O.InputPrecision = O.InputPrecision.TF32,
        max_num_imprecise_acc: int | None = None,
    ) -> Value:
        return self.insert(
            O.DotOp(a, b, acc, self.loc, input_precision, max_num_imprecise_acc)
        ).result

    def reduce(self, operands: Sequence[Value], axis: int) -> O.ReduceOp:
        """Create a ReduceOp; fill ``op.combine`` with ``at_end_of`` and end it with ``yield_``."""
        return self.insert(O.ReduceOp(list(operands), axis, self.loc))

    def scan(self, operands: Sequence[Value], axis: int, reverse: bool = False) -> O.ScanOp:
        return self.insert(O.ScanOp(list(operands), axis, reverse, self.loc))

    def if_(self, cond: Value, result_types: Sequence[Type] = ()) -> O.IfOp:
        return self.insert(O.IfOp(cond, result_types, self.loc))

    def for_(
        self, lb: Value, ub: Value, step: Value, init: Sequence[Value] = (), **attrs: object
    ) -> O.ForOp:
        return self.insert(O.ForOp(lb, ub, step, init, self.loc, **attrs))  # type: ignore[arg-type]

    def while_(self, init: Sequence[Value]) -> O.WhileOp:
        return self.insert(O.WhileOp(init, self.loc))

    def yield_(self, values: Sequence[Value] = ()) -> O.YieldOp:
        return self.insert(O.YieldOp(values, self.loc))

    def condition(self, cond: Value, values: Sequence[Value] = ()) -> O.ConditionOp:
        return self.insert(O.ConditionOp(cond, values, self.loc))

    def ret(self) -> O.ReturnOp:
        return self.insert(O.ReturnOp((), self.loc))

    def print_(self, prefix: str, values: Sequence[Value], hex: bool = False) -> O.PrintOp:
        return self.insert(O.PrintOp(prefix, values, self.loc, hex))

    def assert_(self, cond: Value, message: str) -> O.AssertOp:
        return self.insert(O.AssertOp(cond, message, self.loc))

    def hint(
        self,
        value: Value,
        multiple_of: tuple[int, ...] = (),
        max_contiguous: tuple[int, ...] = (),
        max_constancy: tuple[int, ...] = (),
    ) -> Value:
        return self.insert(
            O.HintOp(value, self.loc, multiple_of, max_contiguous, max_constancy)
        ).result

    def assume(self, cond: Value) -> O.AssumeOp:
        return self.insert(O.AssumeOp(cond, self.loc))
