"""The lowering context: tile IR function → one NVPTX kernel in an llvmlite module.

Holds the value environment (scalars as one LLVM value; tiles as a :class:`Tile` of per-thread
registers in a layout), thread coordinates, shared-memory scratch and layout conversion. The
per-op rules live in the ``rules_*`` modules and are looked up in one table; what is the GPU
vendor's own (special registers, barrier, shuffles, printf) they ask of ``target``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from llvmlite import ir

from ...errors import LoweringError, UnsupportedFeature
from ...ir import ops as O
from ...ir.argspec import ArgSpec
from ...ir.core import Block, Op, Value
from ...ir.types import PointerType, ScalarType, element_of
from ..artifacts import AssertInfo
from ..rules import apply_rule
from . import conversion, register_budget, rematerialize, thread_index
from .axis_info import AxisAnalysis
from .contiguous_pointers import rebase
from .dot_plans import DotPlans
from .layout import DimMap, Layout, ownership, register_keys
from .layout_assign import LayoutPlan
from .mma import SharedOperand
from .mma_expr import Expr
from .mma_pins import mma_pins
from .pipeline import LoopPipeline, plan
from .target_info import NvptxTarget, TargetInfo
from .thread_index import Index, Terms, ThreadPart
from .tile import Key, Lowered, Tile
from .types import I8, I32, llvm_type, memory_type

# dynamic shared memory a block may use on sm_80 (163 KiB; sm_90 allows 227 KiB)
MAX_SHARED = 160 * 1024


def param_type(spec: ArgSpec, target: TargetInfo) -> ir.Type:
    if isinstance(spec.type, PointerType):
        return target.global_ptr
    assert isinstance(spec.type, ScalarType)
    return I8 if spec.type.bits == 1 else llvm_type(spec.type)


class Lowering:
    def __init__(
        self,
        module: ir.Module,
        func: O.FuncOp,
        num_warps: int,
        arch: int,
        rules: dict[type, Rule],
        num_stages: int | None = None,
        private_stages: bool = False,
        wgmma: bool = False,
        defer_wgmma: bool = True,
        target: TargetInfo | None = None,
    ) -> None:
        self.module, self.func, self.num_warps, self.arch = module, func, num_warps, arch
        # the vendor-specific calls (target_info.py)
        self.target: TargetInfo = target if target is not None else NvptxTarget(arch)
        self.rules = rules
        # the launch's num_stages for loops without their own (pipeline.py); None: no pipelining
        self.num_stages = num_stages
        # whether loads other than tensor-core dot operands are pipelined too (pipeline.py)
        self.private_stages = private_stages
        # whether tensor-core dots may run on wgmma (sm_90a; rules/dot_wgmma.py)
        self.wgmma = wgmma
        # whether K loops may keep a wgmma group in flight (wgmma_groups.deferred), and
        # whether one did
        self.defer_wgmma = defer_wgmma
        self.wgmma_deferred = False
        self.max_shared = MAX_SHARED
        self.axis = AxisAnalysis(func)
        # the tensor-core plan of each dot (dot_plans.py), read by the pins, pipeliner and rule
        self.dot_plans = DotPlans(func, num_warps, arch, wgmma)
        pins = mma_pins(func, self.dot_plans)
        warp, vector = self.target.warp_size, self.target.vector_bytes
        self.plan = LayoutPlan(func, num_warps, self.axis, pins, warp, vector)
        register_budget.check(func, self.plan)
        self.env: dict[Value, Lowered] = {}
        self.asserts: list[AssertInfo] = []
        self.shared_bytes = 0
        self.reserved = 0
        self.pipelines: dict[Op, LoopPipeline] = {}  # set by run()
        # dot operands a pipelined loop body reads from its stage buffers (SharedOperand)
        self.shared_operands: dict[Value, SharedOperand] = {}
        self.pipelined_depth = 0  # pipelined loops around the code being lowered
        # pipelined loop bodies' copies, held back until a dot directly in the body has
        # issued its first instructions (pipeline_lowering.top_of_body), by body
        self.held_copies: dict[Block, Callable[[], None]] = {}
        # loops whose carried accumulators (by index) a wgmma group may still be writing at
        # the exit (wgmma_groups.deferred): the loop waits for them there
        self.deferred_waits: dict[Op, set[int]] = {}
        # per loop, the carried indices whose group stays in flight until the next iteration's
        # first wgmma dot (wgmma_groups.held_across), and the body arguments still in flight
        self.held: dict[Op, set[int]] = {}
        self.in_flight: dict[Value, None] = {}
        self._smem: ir.GlobalVariable | None = None
        self._tid_cache: dict[DimMap, ir.Value] = {}
        self._part_cache: dict[ThreadPart, ir.Value] = {}
        self._terms_cache: dict[Terms, ir.Value] = {}
        # operations on thread-only values emitted in the prologue (mma_expr.Expr's memo)
        self.prologue_memo: dict[object, ir.Value] = {}
        self._strings = 0
        fnty = ir.FunctionType(ir.VoidType(), [param_type(s, self.target) for s in func.specs])
        self.fn = ir.Function(module, fnty, func.sym_name)
        self.fn.calling_convention = self.target.kernel_convention
        self.prologue = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.b = ir.IRBuilder(self.fn.append_basic_block("body"))
        tid = self.target.thread_id(self.prologue)
        warp_size = self.target.warp_size
        self._warp_shift = warp_size.bit_length() - 1
        self.lane = self.prologue.and_(tid, ir.Constant(I32, warp_size - 1), "lane")
        self.warp = self.prologue.lshr(tid, _c(self._warp_shift), "warp")

    # -- driving ---------------------------------------------------------------------------
    def run(self) -> None:
        for arg, spec, param in zip(self.func.args, self.func.specs, self.fn.args):
            param.name = spec.name
            if isinstance(spec.type, ScalarType) and spec.type.bits == 1:
                self.env[arg] = self.prologue.trunc(param, ir.IntType(1))
            else:
                self.env[arg] = param
        self.pipelines = plan(self, self.func)
        self.block(self.func.body)
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self.prologue.branch(self.fn.blocks[1])
        if self.shared_bytes > MAX_SHARED:
            raise UnsupportedFeature(
                f"kernel needs {self.shared_bytes} bytes of shared memory for layout conversions "
                f"(limit {MAX_SHARED}); use smaller tiles",
                self.func.loc,
            )

    def block(self, block: Block) -> None:
        for op in block.ops:
            if not op.is_terminator:
                self.lower_op(op)

    def lower_op(self, op: Op) -> None:
        apply_rule(self, self.rules.get(type(op)), op, "CUDA")

    def release_copies(self, block: Block | None) -> None:
        """Emit here the copies held back for the pipelined loop whose body is ``block``, if
        any. Only code directly in that body may (never a branch in it: every thread commits
        one group per iteration)."""
        held = self.held_copies.pop(block, None) if block is not None else None
        if held is not None:
            held()

    # -- values ------------------------------------------------------------------------------
    def scalar(self, v: Value) -> ir.Value:
        got = self.env[v]
        assert not isinstance(got, Tile), f"{v} is a tile"
        return got

    def tile(self, v: Value, layout: Layout | None = None) -> Tile:
        got = self.env[v]
        if not isinstance(got, Tile):
            raise LoweringError(f"expected a tile for {v!r}")
        return got if layout is None else self._in_layout(v, got, layout)

    def value(self, v: Value, layout: Layout | None) -> Lowered:
        """A tile in ``layout`` (when given), or a scalar as is."""
        got = self.env[v]
        if isinstance(got, Tile) and layout is not None:
            return self._in_layout(v, got, layout)
        return got

    def _in_layout(self, v: Value, got: Tile, layout: Layout) -> Tile:
        """``v`` (lowered as ``got``) in ``layout``: as is, recomputed when cheap
        (rematerialize.py), else converted through shared memory."""
        if got.layout == layout or _same_placement(got.layout, layout, got.shape):
            return self.convert(got, layout)
        again = rematerialize.rebuild(self, v, layout)
        return again if again is not None else self.convert(got, layout)

    def pointers(self, v: Value, layout: Layout, keys: list[Key] | None = None) -> Tile:
        """The pointer tile ``v`` in ``layout``, each register inside a run of contiguous
        addresses computed from its run's first (contiguous_pointers.py says why); with
        ``keys``, only the registers the caller reads (the first of each vector access)."""
        tile = self.tile(v, layout)
        elem = element_of(v.type)
        assert isinstance(elem, PointerType)
        only = set(keys) if keys is not None else None
        return rebase(self.b, tile, self.axis[v].contiguity, memory_type(elem.element), only)

    def want(self, v: Value) -> Layout:
        return self.plan[v]

    def set(self, v: Value, x: Lowered) -> None:
        self.env[v] = x

    def keys(self, layout: Layout, shape: tuple[int, ...]) -> list[Key]:
        return register_keys(layout, shape)

    # -- thread coordinates ----------------------------------------------------------------
    def thread_index(self, dm: DimMap) -> ir.Value:
        """``warp_d * tpw + lane_d`` along one dimension (computed once, in the prologue)."""
        got = self._tid_cache.get(dm)
        if got is None:
            p = self.prologue
            lane = p.urem(p.udiv(self.lane, _c(dm.lane_stride)), _c(dm.tpw))
            warp = p.urem(p.udiv(self.warp, _c(dm.warp_stride)), _c(dm.wpc))
            got = p.add(p.mul(warp, _c(dm.tpw)), lane)
            self._tid_cache[dm] = got
        return got

    def coord(self, layout: Layout, shape: tuple[int, ...], key: Key) -> list[ir.Value]:
        """The element coordinates of one register, as i32 values."""
        exact = thread_index.coords(layout, shape, key)
        if exact is not None:  # thread part (computed once) + a constant
            return [self.index_value(c) for c in exact]
        out = []
        for dm, n, i in zip(layout.dim_maps(), shape, key):
            off = dm.offset(i, n)
            if dm.distinct_threads(n) == 1:
                out.append(_c(off % n))
                continue
            t = (
                self.prologue.mul(self.thread_index(dm), _c(dm.spt))
                if dm.spt > 1
                else self.thread_index(dm)
            )
            out.append(self.b.urem(self.b.add(t, _c(off)), _c(n)))
        return out

    def part_value(self, part: ThreadPart) -> ir.Value:
        """One dimension's thread part of a coordinate (thread_index.py), in the prologue."""
        got = self._part_cache.get(part)
        if got is None:
            p, dm = self.prologue, part.dm
            got = self.thread_index(dm)
            if dm.spt > 1:
                got = p.mul(got, _c(dm.spt))
            if part.wraps:
                got = p.urem(got, _c(part.n))
            self._part_cache[part] = got
        return got

    def terms_value(self, terms: Terms) -> ir.Value | None:
        """The thread-dependent terms of an Index, computed once in the prologue."""
        if not terms:
            return None
        got = self._terms_cache.get(terms)
        if got is None:
            p = self.prologue
            for part, k in thread_index.ordered(terms):
                x = self.part_value(part)
                if k == -1:
                    got = p.sub(got, x) if got is not None else p.sub(_c(0), x)
                    continue
                x = p.mul(x, _c(k)) if k != 1 else x
                got = p.add(got, x) if got is not None else x
            assert got is not None
            self._terms_cache[terms] = got
        return got

    def index_value(self, idx: Index, builder: ir.IRBuilder | None = None) -> ir.Value:
        """``idx`` as an i32 value: its terms (prologue) plus the constant, added by
        ``builder`` (default: the current position)."""
        t = self.terms_value(idx.terms)
        if t is None:
            return _c(idx.const)
        return (builder or self.b).add(t, _c(idx.const)) if idx.const else t

    def thread_coords(self, layout: Layout, shape: tuple[int, ...], key: Key) -> list[Expr]:
        """A register's coordinates as Exprs: in the prologue (computed once, shared through
        ``prologue_memo``) when they depend on the thread only, which is the rule for tilec's
        layouts; else at the current position."""
        exact = thread_index.coords(layout, shape, key)
        if exact is None:
            return [Expr(self.b, c) for c in self.coord(layout, shape, key)]
        p, memo = self.prologue, self.prologue_memo
        return [Expr(p, self.index_value(c, p), memo) for c in exact]

    def owner_mask(self, layout: Layout, shape: tuple[int, ...]) -> ir.Value | None:
        """True in the one thread that owns each of its elements (layouts may replicate data
        across threads; atomics and stores must happen once). None when nothing is replicated."""
        own = ownership(layout, shape, self.num_warps, self.target.warp_size)
        if own.everyone:
            return None
        p = self.prologue
        conds = [
            p.icmp_unsigned("<", self.thread_index(dm), _c(limit)) for dm, limit in own.bounded
        ]
        for reg, free in ((self.lane, own.free_lane_bits), (self.warp, own.free_warp_bits)):
            if free:
                conds.append(p.icmp_unsigned("==", p.and_(reg, _c(free)), _c(0)))
        out = conds[0]
        for c in conds[1:]:
            out = p.and_(out, c)
        return out

    def first_thread(self) -> ir.Value:
        tid = self.prologue.or_(self.lane, self.prologue.shl(self.warp, _c(self._warp_shift)))
        return self.prologue.icmp_unsigned("==", tid, _c(0))

    def linear(self, coords: list, shape: tuple[int, ...]) -> ir.Value | Index:  # type: ignore[type-arg]
        """The row-major index of ``coords`` in ``shape``: an Index when the coordinates are
        Indices (or ints), else an i32 value."""
        if all(isinstance(c, (Index, int)) for c in coords):
            return thread_index.linear(coords, shape)
        idx: ir.Value | None = None
        stride = 1
        for c, n in reversed(list(zip(coords, shape))):
            c = _c(c) if isinstance(c, int) else c
            term = self.b.mul(c, _c(stride)) if stride != 1 else c
            idx = self.b.add(idx, term) if idx is not None else term
            stride *= n
        return idx if idx is not None else _c(0)

    # -- shared memory and conversions -------------------------------------------------------
    def smem(self, nbytes: int, align: int = 16) -> ir.Value:
        """The base of the scratch shared memory, which must hold at least ``nbytes``. Inside
        a pipelined loop the scratch lies above the stage buffers; elsewhere it may reuse
        them (an epilogue's layout conversion): every scratch user starts with a barrier, the
        loops drain their copies at exit and start with a barrier (pipeline_lowering.py)."""
        base = self.shared_base()
        start = self.reserved if self.pipelined_depth else 0
        start = (start + align - 1) // align * align
        self.shared_bytes = max(self.shared_bytes, start + (nbytes + 15) // 16 * 16)
        if not start:
            return base
        return self.b.gep(base, [_c(start)], source_etype=I8)

    def shared_base(self) -> ir.Value:
        """The start of dynamic shared memory: ``reserved`` bytes for cp.async stage buffers
        (pipeline.py), then the scratch :meth:`smem` hands out."""
        if self._smem is None:
            # sized at launch by KernelMetadata.shared; wgmma's swizzled operands need
            # 1024-byte alignment (mma.ATOM_ALIGN)
            align = 1024 if self.wgmma else 16
            self._smem = self.target.shared_memory(self.module, "tilec_smem", align)
        return self._smem

    def reserve_shared(self, nbytes: int) -> None:
        """Keep the first ``nbytes`` of shared memory out of the scratch (before lowering)."""
        self.reserved = (nbytes + 127) // 128 * 128  # scratch stays 128-byte aligned
        self.shared_bytes = max(self.shared_bytes, self.reserved)

    def thread_bytes(self, chunk: int) -> ir.Value:
        """``thread id * chunk``, computed once in the prologue."""
        tid = self.prologue.or_(self.lane, self.prologue.shl(self.warp, _c(self._warp_shift)))
        return self.prologue.mul(tid, _c(chunk))

    def barrier(self) -> None:
        self.target.barrier(self.b)

    def convert(self, t: Tile, layout: Layout) -> Tile:
        if t.layout == layout:
            return t
        if _same_placement(t.layout, layout, t.shape):
            return Tile(layout, t.shape, t.regs)
        return self.remap([t], layout, t.shape, lambda c: self.linear(c, t.shape))

    def remap(
        self,
        tiles: list[Tile],
        layout: Layout,
        shape: tuple[int, ...],
        source_index: Callable[[list[ir.Value]], ir.Value],
    ) -> Tile:
        """Move elements through shared memory: ``tiles`` are written one after the other
        (row-major each); the element at coordinates ``c`` of the result (in ``shape`` and
        ``layout``) reads buffer element ``source_index(c)``."""
        return conversion.remap(self, tiles, layout, shape, source_index)

    def global_string(self, text: str) -> ir.Value:
        """A constant string, as a generic pointer at the current position."""
        name = f"tilec_str_{self._strings}"
        self._strings += 1
        return self.target.constant_string(self.module, self.b, name, text)


def _c(v: int) -> ir.Constant:
    return ir.Constant(I32, v)


def _same_placement(a: Layout, b: Layout, shape: tuple[int, ...]) -> bool:
    """Whether two layouts put every element of ``shape`` in the same thread and register
    (dimensions of size 1 are held by every thread whatever their map says)."""
    return all(x == y or n == 1 for x, y, n in zip(a.dim_maps(), b.dim_maps(), shape))


# a lowering rule: emits ``op`` at the Lowering's current position and binds its results
Rule: TypeAlias = Callable[[Lowering, Op], None]
