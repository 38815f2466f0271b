"""Tile IR → LLVM IR for the CPU: the lowering context and the walk over a kernel's ops.

Each op is lowered by the rule registered for its class (a missing rule is a LoweringError
naming the op and its location). Tile results stay lazy element expressions (tiles.py) until a
materialization point writes them to an aligned stack buffer: several consumers of an expensive
value, a store or atomic that could change what a pending load reads, or a region boundary.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeAlias

from llvmlite import ir

from ...errors import LoweringError
from ...ir.core import Block, Op, Value
from ...ir.ops import FuncOp
from ...ir.types import Element, PointerType, TileType, Type, element_of, shape_of
from ..artifacts import AssertInfo
from ..llvm import types as T
from ..llvm.intrinsics import declare
from ..rules import apply_rule
from .inner_axis import inner_axis
from .int_ranges import IntFacts
from .liveness import Liveness
from .load_tile import find_split
from .nest import emit_nest
from .tiles import (
    BufferTile,
    MapTile,
    Scope,
    SplatTile,
    Tile,
    ViewTile,
    order_with_inner,
    storage,
)

Lowered: TypeAlias = ir.Value | Tile
Rule = Callable[["Lowering", Op], None]

# bytes of tile buffers one program keeps on the stack (the rest goes to one heap block)
STACK_LIMIT = 192 * 1024

# a lazy value used by several consumers is recomputed in each unless it costs at least this
# much per element (a transcendental function or a gather always does): recomputing a few
# arithmetic ops is cheaper than a store and a reload, and keeps consumers fused
RECOMPUTE_LIMIT = 10


class Lowering:
    """Lowers one FuncOp's body into ``fn``: ``fn(args, px, py, pz, gx, gy, gz, status)``."""

    def __init__(
        self,
        func: FuncOp,
        fn: ir.Function,
        rules: dict[type, Rule],
        vector_width: int = 8,
        vector_registers: int = 16,
        int_facts: IntFacts | None = None,
        num_warps: int = 1,
    ):
        self.func = func
        self.int_facts = int_facts or IntFacts()  # what integer ranges allow (int_ranges.py)
        self.vector_width = vector_width  # fp32 SIMD lanes of the target (matmul blocking)
        self.vector_registers = vector_registers
        self.num_warps = num_warps  # the launch option: device_print repeats a scalar per thread
        self.in_combine = False  # lowering a reduce/scan combine region
        # ops lowered by a surrounding construct instead of their rule (rules/dot_loop.py)
        self.op_hooks: dict[Op, Rule] = {}
        # a trial lowering whose code is thrown away: nothing may be allocated for it
        self.probing = False
        self._stack_bytes = 0
        self._heap: ir.Value | None = None
        self._heap_total: ir.GlobalVariable | None = None
        self._heap_bytes = 0
        self.fn = fn
        self.rules = rules
        self.env: dict[Value, Lowered] = {}
        self.live = Liveness(func)
        self.asserts: list[AssertInfo] = []
        entry = fn.append_basic_block("allocas")
        start = fn.append_basic_block("start")
        self.alloca_b = ir.IRBuilder(entry)
        self._alloca_br = self.alloca_b.branch(start)
        self.b = ir.IRBuilder(start)
        args, px, py, pz, gx, gy, gz, status = fn.args
        self.args_ptr, self.pid, self.grid, self.status = args, (px, py, pz), (gx, gy, gz), status

    # -- values -----------------------------------------------------------------------------
    def get(self, v: Value) -> Lowered:
        try:
            return self.env[v]
        except KeyError:
            raise LoweringError(f"value {v!r} used before it was lowered") from None

    def scalar(self, v: Value) -> ir.Value:
        x = self.get(v)
        if isinstance(x, Tile):
            raise LoweringError(f"expected a scalar, got a tile for {v!r}")
        return x

    def tile(self, v: Value, shape: tuple[int, ...] | None = None) -> Tile:
        """``v`` as a Tile (scalars splat to ``shape``)."""
        x = self.get(v)
        if isinstance(x, Tile):
            return x
        assert shape is not None, "a scalar needs a shape to become a tile"
        return SplatTile(shape, element_of(v.type), x)

    def tile_of(self, x: Lowered, t: Type) -> Tile:
        if isinstance(x, Tile):
            return x
        return SplatTile(shape_of(t), element_of(t), x)

    def define(self, v: Value, x: Lowered) -> None:
        lazy = isinstance(x, Tile) and not isinstance(x, BufferTile)
        if lazy and expensive(x) and len(self.live.fusion_roots(v)) >= 2:  # type: ignore[arg-type]
            x = self.settle(x)  # type: ignore[arg-type]
        self.env[v] = x

    # -- buffers ----------------------------------------------------------------------------
    def buffer(self, elem: Element, shape: tuple[int, ...], inner: int | None = None) -> BufferTile:
        """A buffer for a tile, row-major but for axis ``inner`` innermost where given: on the
        stack while the program's buffers stay small (threads may have 512 KiB stacks), past
        that in one heap block per program run."""
        order = order_with_inner(len(shape), inner)
        n = 1
        for d in shape:
            n *= d
        size = (n * max(T.bit_width(storage(elem)) // 8, 1) + 63) // 64 * 64
        self.alloca_b.position_before(self._alloca_br)
        if self._stack_bytes + size > STACK_LIMIT:
            return BufferTile(tuple(shape), elem, self._heap_buffer(size), order)
        self._stack_bytes += size
        addr = self.alloca_b.alloca(ir.ArrayType(storage(elem), n))
        addr.align = 64
        addr.type = T.ptr  # llvmlite gives allocas a typed pointer; LLVM has only opaque ones
        return BufferTile(tuple(shape), elem, addr, order)

    def _heap_buffer(self, size: int) -> ir.Value:
        b = self.alloca_b
        if self._heap is None:
            module = b.module
            # one per program function: a module can hold two (program.py)
            total = ir.GlobalVariable(module, T.i64, module.get_unique_name("tilec.heap_bytes"))
            total.global_constant = True
            total.linkage = "private"
            malloc = declare(module, "malloc", T.ptr, [T.i64])
            self._heap_total = total
            self._heap = b.call(malloc, [b.load(total, typ=T.i64)])
        addr = b.gep(self._heap, [ir.Constant(T.i64, self._heap_bytes)], source_etype=T.i8)
        self._heap_bytes += size
        return addr

    def ret(self) -> None:
        """Return from the program, releasing its heap buffers."""
        if self._heap is not None:
            self.b.call(declare(self.b.module, "free", T.void, [T.ptr]), [self._heap])
        self.b.ret_void()

    def finish(self) -> None:
        if self._heap_total is not None:
            self._heap_total.initializer = ir.Constant(T.i64, self._heap_bytes)

    def slot(self, t: ir.Type) -> ir.Value:
        """A stack slot for one scalar (promoted to a register by mem2reg)."""
        self.alloca_b.position_before(self._alloca_br)
        addr = self.alloca_b.alloca(t)
        addr.type = T.ptr
        return addr

    def materialize(self, tile: Tile) -> BufferTile:
        """``tile`` in a row-major buffer (what the matmul kernels read)."""
        if isinstance(tile, BufferTile) and tile.row_major:
            return tile
        return self._materialize(tile, None)

    def settle(self, tile: Tile) -> BufferTile:
        """``tile`` in a buffer laid out as the loop nest computing it runs (the axis it runs
        innermost is innermost in memory), for element-by-element readers."""
        if isinstance(tile, BufferTile):
            return tile
        return self._materialize(tile, inner_axis(tile.shape, [tile]))

    @contextlib.contextmanager
    def trial(self, loop: Op) -> Iterator[None]:
        """A trial lowering of ``loop``'s body (its induction variable bound to 0) into a
        scratch function that is thrown away: the builder and the environment are restored
        afterwards, and nothing is allocated meanwhile (``probing``)."""
        scratch = ir.Function(ir.Module("tilec.probe"), ir.FunctionType(T.void, []), "probe")
        saved_b, saved_env = self.b, dict(self.env)
        self.b = ir.IRBuilder(scratch.append_basic_block("probe"))
        self.probing = True
        try:
            self.env[loop.induction_var] = ir.Constant(self.scalar(loop.operands[0]).type, 0)
            yield
        finally:
            self.b, self.env, self.probing = saved_b, saved_env, False

    def _materialize(self, tile: Tile, inner: int | None) -> BufferTile:
        if self.probing:
            order = order_with_inner(len(tile.shape), inner)
            return BufferTile(tile.shape, tile.elem, ir.Constant(T.ptr, None), order)
        buf = self.buffer(tile.elem, tile.shape, inner)
        self.write(tile, buf)
        return buf

    def write(self, tile: Tile, buf: BufferTile) -> None:
        """Evaluate ``tile`` into ``buf`` (same shape) in one loop nest."""

        def body(s: Scope, idx: tuple[ir.Value, ...]) -> None:
            s.b.store(s.get(tile, idx), buf.element_ptr(s, idx))

        inner = inner_axis(tile.shape, [tile], out=buf)
        emit_nest(self.b, tile.shape, body, find_split([tile], axis=inner), inner=inner)

    # -- hazards ----------------------------------------------------------------------------
    def flush_loads(self, pos: int, only: Callable[[Value], bool] | None = None) -> None:
        """Materialize pending lazy loads that are live across position ``pos``."""
        for v, x in list(self.env.items()):
            pending = isinstance(x, Tile) and not isinstance(x, BufferTile) and x.has_load
            if pending and self.live.live_across(v, pos) and (only is None or only(v)):
                self.env[v] = self.settle(x)  # type: ignore[arg-type]

    def enter_region_op(self, op: Op) -> None:
        """Before a region op: values it uses from outside are computed once, here."""
        pos = self.live.order[op]
        for v, x in list(self.env.items()):
            if not isinstance(x, Tile) or isinstance(x, BufferTile):
                continue
            inside = self.live.used_inside(v, op)
            if (inside and (x.has_load or expensive(x))) or (
                x.has_load and self.live.live_across(v, pos)
            ):
                self.env[v] = self.settle(x)

    # -- walking ----------------------------------------------------------------------------
    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Op) -> None:
        apply_rule(self, self.op_hooks.get(op) or self.rules.get(type(op)), op, "CPU")

    def run(self) -> None:
        for op in self.func.body.ops:
            self.lower_op(op)
            if self.b.block.is_terminated:
                break
        if not self.b.block.is_terminated:
            self.ret()
        self.finish()


def expensive(tile: Tile) -> bool:
    """Worth a buffer rather than recomputing per use. Contiguous/strided pointer tiles never
    are (along any axis, which a nest may run innermost): an element is one add off a row base
    that LLVM hoists."""
    if isinstance(tile.elem, PointerType) and any(
        tile.stride_on(a) is not None for a in range(len(tile.shape))
    ):
        return False
    return tile.cost() >= RECOMPUTE_LIMIT


def map_tile(
    op: Op,
    operands: list[Tile],
    fn: Callable[[ir.IRBuilder, list[ir.Value]], ir.Value],
    **kw: object,
) -> MapTile:
    t = op.results[0].type
    assert isinstance(t, TileType)
    return MapTile(t.shape, t.element, operands, fn, **kw)  # type: ignore[arg-type]


def result_shape(op: Op) -> tuple[int, ...]:
    return shape_of(op.results[0].type)


__all__ = ["Lowered", "Lowering", "Rule", "ViewTile", "map_tile", "result_shape"]
