"""The random kernel generator. Every decision is one ``Draw.int(lo, hi)``; the lowest value is
always the simplest choice (a leaf, int32, no mask ...), so shrinking a failing run toward
smaller numbers (Hypothesis, or shrink.py on a recorded run) gives a small kernel.

Invariants the reference relies on: approximate results (float sums and scans, math functions,
fma) occur only at the root, so no tolerance has to travel through later operations; every
operand combination is one Triton accepts (casts are inserted where it would not).
"""

from __future__ import annotations

from dataclasses import replace

from . import dtypes as D
from .draw import Draw, coin, pick
from .dtypes import DType
from .gen_shape import ShapeOps, random_shape
from .program import Case, Input, Kernel, Layout, Node, Shape, numel, walk
from .reference import is_approximate

MAX_NODES = 40  # compile time grows with the kernel; failures shrink anyway
ATOMIC_TYPES = (D.I32, D.U32, D.I64, D.U64, D.F32, D.F64)


class Generator(ShapeOps):
    def __init__(self, d: Draw) -> None:
        self.d = d
        self.inputs: list[Input] = []
        self.scalars: list[tuple[str, DType, int | float]] = []
        self.consts: list[tuple[str, int | float]] = []
        self.pool: list[Node] = []
        self.combine: set[str] = set()

    # -- leaves ------------------------------------------------------------------------------
    def leaf(self, shape: Shape) -> Node:
        d = self.d
        kind = d.int(0, 5)
        if kind == 1 and shape:
            axis = d.int(0, len(shape) - 1)
            return Node("arange", (), D.I32, shape, (axis,))
        if kind == 2 and shape:
            t = pick(d, D.ALL)
            return Node("full", (), t, shape, (self.number(t),))
        if kind == 3 and not shape:
            return Node("pid", (), D.I32, ())
        if kind == 4 and not shape:
            return self.scalar()
        return self.load(shape)

    def load(self, shape: Shape) -> Node:
        d = self.d
        same = [i for i, x in enumerate(self.inputs) if x.shape == shape]
        if same and (len(self.inputs) >= 3 or coin(d, 40)):
            k = pick(d, same)
        else:
            t = pick(d, (*D.ALL, *D.FLOATS))
            masked = coin(d, 60)
            other = self.number(t) if masked and coin(d, 60) else None
            self.inputs.append(Input(t, shape, masked, other, self.layout(shape)))
            k = len(self.inputs) - 1
        return Node("load", (), self.inputs[k].dtype, shape, (k,))

    def layout(self, shape: Shape) -> Layout:
        """Mostly contiguous rows; at times another axis order (a transposed tile) or axes
        read backwards, so that loads and stores also take strided and reversed addresses."""
        d = self.d
        if not shape or not coin(d, 30):
            return Layout()
        rest = list(range(len(shape)))
        order = tuple(rest.pop(d.int(0, len(rest) - 1)) for _ in range(len(shape)))
        flipped = tuple(a for a in range(len(shape)) if coin(d, 30))
        return Layout(() if order == tuple(sorted(order)) else order, flipped)

    def gather_load(self, shape: Shape, depth: int, root: bool) -> Node:
        """A load at addresses computed from data: ``in + pid * S + (idx & (S - 1))`` from a
        1-D input of S elements (duplicates and any order)."""
        d = self.d
        idx = self.integer(self.value(shape, depth))
        size = pick(d, (1, 2, 4, 8, 16, 32))
        t = pick(d, (*D.ALL, *D.FLOATS))
        masked = coin(d, 40)
        other = self.number(t) if masked and coin(d, 60) else None
        self.inputs.append(Input(t, (size,), masked, other))
        return Node("gather_load", (idx,), t, shape, (len(self.inputs) - 1, size, masked, other))

    def scalar(self) -> Node:
        d = self.d
        kind = d.int(0, 2)
        name = f"s{len(self.scalars)}"
        if kind == 0:
            value: int | float = pick(d, (0, 2, 3, -1, 7, -100, 1000, 2**31 - 1))
            t = D.I32
        elif kind == 1:
            value, t = pick(d, (2**31, -(2**31) - 5, 2**40 + 3)), D.I64
        else:
            value, t = pick(d, (0.5, -1.25, 3.0, 1e-3, 65504.0)), D.F32
        self.scalars.append((name, t, value))
        return Node("scalar", (), t, (), (name,))

    def number(self, t: DType) -> int | float:
        """A Python number that converts exactly into ``t`` (as ``other`` or ``tl.full``)."""
        if t.is_float:
            return pick(self.d, (0.0, 1.5, -2.0, 0.25, 3.0, -0.0, 100.0))
        lo, hi = D.int_range(t)
        return pick(self.d, [v for v in (0, 1, 3, -1, 7, 100, -128, 127, 255) if lo <= v <= hi])

    def literal(self, other: DType) -> Node:
        """A number in the source (or a constexpr parameter) next to an operand of ``other``."""
        d = self.d
        if coin(d, 20):
            v: int | float = pick(d, (0.5, 1.5, -2.0, 3.0))
        else:
            lo, hi = D.int_range(other) if other.is_int else (-(2**31), 2**31 - 1)
            v = pick(d, [x for x in (1, 2, 3, 0, 5, -1, -3, 7, 31, 100) if lo <= x <= hi])
        t = D.python_type(v)
        if coin(d, 30):
            name = f"C{len(self.consts)}"
            self.consts.append((name, v))
            return Node("const", (), t, (), (name, v))
        return Node("lit", (), t, (), (v,))

    # -- values ------------------------------------------------------------------------------
    def value(self, shape: Shape, depth: int, root: bool = False) -> Node:
        d = self.d
        same = [n for n in self.pool if n.shape == shape]
        if same and not root and coin(d, 15):
            return pick(d, same)
        if depth <= 0 or len(self.pool) >= MAX_NODES or not (root or coin(d, 90)):
            node = self.leaf(shape)
        else:
            builders = [self.binary, self.binary, self.binary, self.compare, self.where,
                        self.minmax, self.unary, self.unary, self.cast, self.reduce, self.scan,
                        self.reshape, self.permute, self.broadcast, self.join_split,
                        self.cat_flip, self.math, self.binary, self.sort_gather,
                        self.dot, self.loop, self.gather_load, self.dot_loop,
                        self.umulhi, self.stream_loop]  # fmt: skip
            if not shape:
                builders = [b for b in builders if b not in (self.scan, self.reshape,
                            self.permute, self.broadcast, self.join_split, self.cat_flip,
                            self.dot, self.dot_loop)]  # fmt: skip
            node = pick(d, builders)(shape, depth - 1, root)
        self.pool.append(node)
        return node

    def operand(self, shape: Shape, depth: int, next_to: DType, literal_ok: bool = True) -> Node:
        """A second operand: a literal, a value of a broadcastable shape, or of ``shape``."""
        d = self.d
        if literal_ok and coin(d, 25):
            return self.literal(next_to)
        if shape and coin(d, 25):
            small = tuple(1 if coin(d, 50) else s for s in shape)
            return self.value(() if coin(d, 30) else small, depth)
        return self.value(shape, depth)

    def cast_to(self, x: Node, t: DType) -> Node:
        if x.dtype == t:
            return x
        if x.is_literal:
            return self.literal(t) if t.is_int else x
        return Node("cast", (x,), t, x.shape, (t, False))

    def integer(self, x: Node, no_bool: bool = True) -> Node:
        if x.dtype.is_int or (x.dtype.is_bool and not no_bool):
            return x
        if x.is_literal:
            return Node("lit", (), D.I32, (), (int(x.attr[-1]) if not x.dtype.is_float else 3,))
        if x.dtype.is_float and coin(self.d, 50):  # the bits: defined for every value but NaN
            t = pick(self.d, [u for u in D.INTS if u.bits == x.dtype.bits])
            return Node("cast", (x,), t, x.shape, (t, True))
        return self.cast_to(x, pick(self.d, D.INTS))

    def no_bool(self, x: Node) -> Node:
        return self.cast_to(x, pick(self.d, (D.I32, D.I8, D.U8, D.F32))) if x.dtype.is_bool else x

    def pair(self, shape: Shape, depth: int, literal_ok: bool = True) -> tuple[Node, Node]:
        a = self.value(shape, depth)
        b = self.operand(shape, depth, a.dtype, literal_ok)
        return (b, a) if coin(self.d, 20) and a.shape == shape else (a, b)

    def binary(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        sym = pick(d, ("+", "-", "*", "+", "-", "*", "&", "|", "^", "<<", ">>", "/", "//", "%"))
        a, b = self.pair(shape, depth)
        if a.shape != shape and b.shape != shape:
            a = self.value(shape, depth)
        div = sym in ("/", "//", "%")
        if sym in ("&", "|", "^"):
            a, b = self.integer(a, no_bool=False), self.integer(b, no_bool=False)
        elif sym in ("<<", ">>", "//"):
            a, b = self.integer(a), self.integer(b)
        else:
            a, b = self.no_bool(a), self.no_bool(b)
        mixed = not (a.is_literal or b.is_literal or D.same_signedness(a.dtype, b.dtype))
        if div and a.dtype.is_int and b.dtype.is_int and mixed:
            b = self.cast_to(b, a.dtype)  # Triton rejects / // % of mixed signedness
        a, b = self.refit(a, b), self.refit(b, a)
        t = D.computation_type(a.dtype, a.is_literal, b.dtype, b.is_literal, div)
        if a.is_literal and b.is_literal:
            a = self.value(shape, depth)
            return self.binary_node(sym, a, b, shape)
        if sym in ("<<", ">>") and not b.is_literal and coin(d, 80):
            b = Node(
                "bin", (b, Node("lit", (), D.I32, (), (t.bits - 1,))), b.dtype, b.shape, ("&",)
            )
        return self.binary_node(sym, a, b, shape)

    def umulhi(self, shape: Shape, depth: int, root: bool) -> Node:
        """tl.umulhi: the high half of the unsigned double-width product (Triton's MulhiUIOp,
        also for signed operands), on 32/64-bit integers promoted to one type."""
        d = self.d
        wide = (D.I32, D.U32, D.I64, D.U64)
        a = self.value(shape, depth)
        b = self.operand(shape, depth, a.dtype, literal_ok=False)
        a, b = (x if x.dtype in wide else self.cast_to(x, pick(d, wide)) for x in (a, b))
        if a.shape != shape and b.shape != shape:
            a = self.cast_to(self.value(shape, depth), a.dtype)
        return Node("bin", (a, b), D.integer_promote(a.dtype, b.dtype), shape, ("umulhi",))

    def refit(self, lit: Node, other: Node) -> Node:
        """A literal that still fits next to ``other`` after the operands were converted."""
        if not lit.is_literal or not other.dtype.is_int or lit.dtype.is_float:
            return lit
        lo, hi = D.int_range(other.dtype)
        return lit if lo <= lit.attr[-1] <= hi else Node("lit", (), D.I32, (), (1,))

    def binary_node(self, sym: str, a: Node, b: Node, shape: Shape) -> Node:
        t = D.computation_type(a.dtype, a.is_literal, b.dtype, b.is_literal, sym in "/ // %")
        if sym == "/" and t.is_int:
            t = D.F32
        return Node("bin", (a, b), t, shape, (sym,))

    def loop(self, shape: Shape, depth: int, root: bool) -> Node:
        """A value carried through a for loop: ``acc = (acc sym step).to(acc's type)`` each
        trip of ``range(start, stop, step)`` (form 0), each even one under an ``if`` (1), unrolled
        by tl.static_range (2), as tl.range (3), or a while loop counting (4); the stop at times a
        kernel argument."""
        d = self.d
        sym = pick(d, ("+", "-", "*", "&", "|", "^"))
        init = self.value(shape, depth)
        step = self.operand(shape, depth, init.dtype)
        if sym in ("&", "|", "^"):
            init, step = self.integer(init), self.integer(step)
        else:
            init, step = self.no_bool(init), self.no_bool(step)
        step = self.refit(step, init)
        form = d.int(0, 4)
        if form == 2 and init.dtype.is_float:
            form = 0  # unrolled, a product and an addition would be fused (not modelled)
        start, by = pick(d, (0, 0, 2, -3)), pick(d, (1, 1, 2, 3))
        stop = start + by * d.int(0, 5) - d.int(0, by - 1)  # 0..5 trips, any stop
        runtime = ""
        if form != 2 and coin(d, 30):  # the stop as a kernel argument
            runtime = f"s{len(self.scalars)}"
            self.scalars.append((runtime, D.I32, stop))
        attr = (sym, (start, stop, by), form, runtime)
        return Node("loop", (init, step), init.dtype, shape, attr)

    def compare(self, shape: Shape, depth: int, root: bool) -> Node:
        a, b = self.pair(shape, depth)
        if a.shape != shape and b.shape != shape:
            a = self.value(shape, depth)
        if a.is_literal and b.is_literal:
            a = self.value(shape, depth)
        return Node(
            "cmp", (a, b), D.BOOL, shape, (pick(self.d, ("<", "<=", ">", ">=", "==", "!=")),)
        )

    def where(self, shape: Shape, depth: int, root: bool) -> Node:
        cond = self.value(shape, depth)
        if cond.dtype.is_float:
            cond = Node("cmp", (cond, Node("lit", (), D.I32, (), (0,))), D.BOOL, shape, (">",))
        a, b = self.pair(shape, depth)
        if a.is_literal and b.is_literal:
            a = self.value(shape, depth)
        t = D.computation_type(a.dtype, a.is_literal, b.dtype, b.is_literal, False)
        return Node("where", (cond, a, b), t, shape)

    def minmax(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        a, b = self.pair(shape, depth)
        if a.shape != shape and b.shape != shape:
            a = self.value(shape, depth)
        a, b = self.no_bool(a), self.no_bool(b)
        # Triton's minimum/maximum make a Python number a tensor of its own type (no weak
        # typing) and promote bf16 operands to fp32 before the usual promotion
        ta, tb = (D.F32 if x.dtype == D.BF16 else x.dtype for x in (a, b))
        t = D.computation_type(ta, False, tb, False, False)
        which = pick(d, ("maximum", "minimum"))
        return Node("minmax", (a, b), t, shape, (which, t.is_float and coin(d, 40)))

    def unary(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        fn = pick(self.d, ("neg", "invert", "abs", "floor", "ceil"))
        x = self.value(shape, depth)
        if fn in ("floor", "ceil") and not x.dtype.is_float:
            x = self.cast_to(x, pick(d, D.FLOATS))
        elif fn == "invert":
            x = self.integer(x)
        else:
            x = self.no_bool(x)
        return Node("unary", (x,), x.dtype, shape, (fn,))

    def cast(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        x = self.value(shape, depth)
        if coin(d, 25) and not x.dtype.is_bool:
            t = pick(d, D.same_width(x.dtype))
            return Node("cast", (x,), t, shape, (t, True))
        if x.dtype in (D.F32, D.F64) and coin(d, 30):  # fp_downcast_rounding="rtz"
            t = pick(d, (D.F16, D.BF16))
            return Node("cast", (x,), t, shape, (t, False, "rtz"))
        targets = (*D.ALL, D.BOOL) if x.dtype.is_int else D.ALL
        t = pick(d, targets)
        return Node("cast", (x,), t, shape, (t, False)) if t != x.dtype else x


ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
           "atomic_xchg", "atomic_cas")  # fmt: skip


def _read_later(root: Node) -> set[int]:
    """The inputs loaded where the kernel uses them, not with the others at its start."""
    found: set[int] = set()
    for n in walk(root):
        if n.op in ("gather_load", "dot_loop"):
            found |= {n.attr[0]} | ({n.attr[1]} if n.op == "dot_loop" else set())
        elif n.op == "stream_loop":
            found.add(n.attr[1])
    return found


def grid_dims(d: Draw, grid: int) -> tuple[int, ...]:
    """``grid`` programs over one axis, or spread over two or three axes at times."""
    if grid == 1 or not coin(d, 40):
        return ()
    a = pick(d, [x for x in range(1, grid + 1) if grid % x == 0])
    b = pick(d, [x for x in range(1, grid // a + 1) if grid // a % x == 0])
    return (a, b, grid // a // b) if coin(d, 50) else (a, grid // a)


def generate(d: Draw) -> Case:
    """One random kernel and its launch."""
    g = Generator(d)
    shape = random_shape(d, pick(d, (1, 2, 1, 3, 2, 0)))
    depth = d.int(2, 7)
    atomic = coin(d, 10)
    if not atomic and coin(d, 15):  # math functions are only ever roots: give them a share
        root = g.math(shape, depth - 1, True)
    elif not atomic and len(shape) in (2, 3) and coin(d, 10):  # float dots too
        if coin(d, 30):  # several register blocks of the CPU's fp32 kernel, and edges
            shape = tuple(pick(d, (8, 16, 32, 64)) for _ in range(2))
        root = (g.dot if len(shape) == 3 or coin(d, 50) else g.dot_loop)(shape, depth - 1, True)
    else:
        root = g.value(shape, depth, root=not atomic)
    grid = pick(d, (1, 2, 3, 1, 4, 6))
    store = "store"
    returns_old = False
    if atomic:
        store = pick(d, ATOMICS)
        bitwise = store in ("atomic_and", "atomic_or", "atomic_xor")
        kinds = [t for t in ATOMIC_TYPES if not (bitwise and t.is_float)]
        same = [t for t in kinds if t.is_float == root.dtype.is_float] or kinds
        out = pick(d, same)
        root = g.cast_to(root, out)
        if store == "atomic_xchg" or (out.is_float and store == "atomic_add"):
            grid = 1
        if store == "atomic_cas" or coin(d, 50):  # the old values are kept: one program
            grid, returns_old = 1, True
    else:
        out = pick(d, (*D.ALL, D.BOOL)) if coin(d, 15) else root.dtype
        if is_approximate(root):  # a tolerance holds in the root's own type only
            out = root.dtype
    out_masked = store != "atomic_cas" and coin(d, 50)  # tl.atomic_cas takes no mask
    alias = [i for i, x in enumerate(g.inputs) if x.dtype == out and numel(x.shape) == numel(shape)]
    # an in-place update of the output (an atomic's: in a grid of one, so no program reads
    # what another changes)
    scribble = -1
    if (store == "store" or grid == 1) and alias and coin(d, 30):
        i = pick(d, alias)
        g.inputs[i] = replace(g.inputs[i], aliases_out=True)
        if i not in _read_later(root) and coin(d, 50):
            scribble = i
    bounds = []
    for x in g.inputs:
        total = grid * numel(x.shape)
        bounds.append(total - d.int(0, total) if x.masked else total)
    total = (1 if atomic else grid) * numel(shape)
    bounds.append(total - d.int(0, total // 2) if out_masked else total)  # some lanes live
    kernel = Kernel(
        tuple(g.inputs), root, out, store, out_masked, grid, tuple(g.scalars), tuple(g.consts),
        tuple(sorted(g.combine)), returns_old, g.layout(shape), grid_dims(d, grid), scribble,
    )  # fmt: skip
    return Case(kernel, d.int(0, 2**31 - 1), tuple(bounds), d.int(0, 3))
