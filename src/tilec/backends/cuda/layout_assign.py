"""Layout assignment: pick a preferred layout for every tile value before lowering.

Walks each block backwards so a value takes the layout its (last) consumer wants: elementwise ops
pass their result's layout to their operands, ``expand_dims`` asks for a slice of it, reductions
for the parent of their result's slice. Anchors (stores, dot operands, unused values) get the
default blocked layout with 16-byte vectors along the axis where memory is contiguous. A wish
that would hold more elements per thread than the value's own default (a reduction result's
layout asked of a tile many times its size: a [1, 1] store's layout handed up to a [1, 2048]
reduction would copy the whole row into every thread) is not honoured. Lowering converts where
a wish cannot be honoured.
"""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Block, Op, Value
from ...ir.types import PointerType, TileType, element_of
from .axis_info import AxisAnalysis
from .layout import WARP_SIZE, Layout, Slice, default_layout, elements_per_thread
from .types import byte_size

_ELEMENTWISE = (
    O.BinaryOp, O.CompareOp, O.MathOp, O.SelectOp, O.CastOp, O.BitcastOp, O.AddPtrOp,
    O.LoadOp, O.AtomicRMWOp, O.AtomicCASOp, O.HintOp,
)  # fmt: skip


def data_bytes(v: Value) -> int:
    """Bytes of the data a tile describes (a pointer tile's pointee, else its element)."""
    elem = element_of(v.type)
    if isinstance(elem, PointerType):
        return byte_size(elem.element)
    return byte_size(elem)


class LayoutPlan:
    """Preferred layouts of tile values; ``default`` gives the anchor layout of any tile."""

    def __init__(
        self,
        func: O.FuncOp,
        num_warps: int,
        axis: AxisAnalysis | None = None,
        pins: dict[Value, Layout] | None = None,
        warp_size: int = WARP_SIZE,
        vector_bytes: int = 16,
    ) -> None:
        self.num_warps = num_warps
        self.warp_size = warp_size  # the target's (TargetInfo.warp_size, .vector_bytes)
        self.vector_bytes = vector_bytes
        self.axis = axis
        # layouts fixed in advance (tensor-core dot results, mma_pins.py): no wish overrides them
        self.want: dict[Value, Layout] = dict(pins or {})
        self.defaulted: set[Value] = set()  # values no consumer asked a layout of
        self._block(func.body)

    def default(self, v: Value) -> Layout:
        assert isinstance(v.type, TileType)
        shape = v.type.shape
        vec = max(1, self.vector_bytes // data_bytes(v))
        return default_layout(shape, self.num_warps, vec, self._memory_order(v), self.warp_size)

    def _memory_order(self, v: Value) -> tuple[int, ...] | None:
        """Dimensions from most to least contiguous in memory, for a pointer tile or a loaded
        value (Triton's coalescing order); None (the last dimension fastest) for the rest."""
        if self.axis is None:
            return None
        op = v.defining_op
        ptr = op.operands[0] if isinstance(op, O.LoadOp) else v
        if not isinstance(element_of(ptr.type), PointerType):
            return None
        contiguity = self.axis[ptr].contiguity
        rank = len(contiguity)
        if rank < 2 or max(contiguity) <= 1:
            return None
        # most contiguous first; ties keep the row-major preference (later dimensions faster)
        return tuple(sorted(range(rank), key=lambda d: (-contiguity[d], -d)))

    def __getitem__(self, v: Value) -> Layout:
        got = self.want.get(v)
        return got if got is not None else self.default(v)

    def _request(self, v: Value, layout: Layout) -> None:
        if isinstance(v.type, TileType) and v not in self.want:
            self.want[v] = layout

    def _block(self, block: Block) -> None:
        for op in reversed(block.ops):
            for r in op.results:
                if isinstance(r.type, TileType) and r not in self.want:
                    self.want[r] = self.default(r)
                    self.defaulted.add(r)
            self._op(op)

    def _op(self, op: Op) -> None:
        if isinstance(op, _ELEMENTWISE) and op.results:
            result = op.results[0]
            if isinstance(result.type, TileType):
                for v in op.operands:
                    if isinstance(v.type, TileType) and v.type.shape == result.type.shape:
                        self._request(v, self.want[result])
        elif isinstance(op, O.StoreOp):
            anchor = (
                self.want.get(op.ptr) or self.default(op.value)
                if isinstance(op.value.type, TileType)
                else None
            )
            if anchor is not None:
                for v in op.operands:
                    self._request(v, anchor)
        elif isinstance(op, O.DotOp):  # the accumulator comes in the result's layout
            self._request(op.operands[2], self.want[op.result])
        elif isinstance(op, O.BroadcastOp):
            self._request(op.operands[0], self.want[op.result])
        elif isinstance(op, O.ExpandDimsOp):
            self._request(op.operands[0], Slice(self.want[op.result], op.axis))
        elif isinstance(op, O.ReduceOp):
            self._reduce(op)
        elif isinstance(op, (O.ForOp, O.IfOp, O.WhileOp)):
            self._control(op)

    def _reduce(self, op: O.ReduceOp) -> None:
        wanted = self.want.get(op.results[0])
        operand = op.operands[0]
        parent = self[operand]
        if (
            isinstance(wanted, Slice)
            and wanted.dim == op.axis
            and isinstance(operand.type, TileType)
            and elements_per_thread(wanted.parent, operand.type.shape)
            <= elements_per_thread(parent, operand.type.shape)
        ):
            parent = wanted.parent
        for v in op.operands:
            self._request(v, parent)
        for r in op.results:
            if isinstance(r.type, TileType):
                self.want[r] = Slice(parent, op.axis)

    def _carried_args(self, op: Op) -> list[list[Value]]:
        """Per region, the block arguments that carry the op's results (loops only)."""
        if isinstance(op, O.ForOp):
            return [op.body.args[1:]]
        if isinstance(op, O.WhileOp):
            return [op.before.args, op.after.args]
        return []

    def _loop_preferences(self, op: Op) -> None:
        """A loop-carried value nobody after the loop cares about takes the layout its uses
        inside the loop want, so the body does not convert it on every iteration. Found by a
        trial walk of the body whose wishes are then forgotten."""
        open_results = [r in self.defaulted for r in op.results]
        if not any(open_results):
            return
        saved = (dict(self.want), set(self.defaulted))
        for region in reversed(op.regions):
            self._block(region.entry)
        wished = [[self.want.get(a) for a in args] for args in self._carried_args(op)]
        self.want, self.defaulted = saved
        for i, r in enumerate(op.results):
            found = next((w[i] for w in wished if w[i] is not None), None)
            if open_results[i] and found is not None:
                self.want[r] = found
                self.defaulted.discard(r)

    def _control(self, op: Op) -> None:
        if isinstance(op, (O.ForOp, O.WhileOp)):
            self._loop_preferences(op)
        layouts = [self.want.get(r) for r in op.results]
        for region in reversed(op.regions):
            block = region.entry
            term = block.terminator
            if term is not None:
                values = term.operands[1:] if isinstance(term, O.ConditionOp) else term.operands
                for v, lay in zip(values, layouts):
                    if lay is not None:
                        self._request(v, lay)
            args = block.args[1:] if isinstance(op, O.ForOp) else block.args
            for a, lay in zip(args, layouts):
                if lay is not None:
                    self.want[a] = lay
            self._block(block)
        inits = (
            op.operands[3:]
            if isinstance(op, O.ForOp)
            else op.operands
            if isinstance(op, O.WhileOp)
            else []
        )
        for v, lay in zip(inits, layouts):
            if lay is not None:
                self._request(v, lay)
