"""The generator's reductions, scans, shape operations and math functions (a mixin of
gen.Generator): each builds a value of a requested shape from operands of the shape it needs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import dtypes as D
from .draw import Draw, coin, pick
from .program import Input, Layout, Node, Shape, numel

if TYPE_CHECKING:
    from .dtypes import DType

MAX_NUMEL = 256
DIMS = (1, 2, 4, 8, 16, 32)
MATH1 = ("exp", "log", "sin", "cos", "sqrt", "exp2", "log2", "rsqrt", "erf", "sqrt_rn", "sigmoid")
MATH = (*MATH1, "div_rn", "fma")
SCANS = ("cumsum", "cumprod", "scan_add", "scan_max", "scan_xor", "scan_or")
DOT_TYPES = (D.I8, D.F16, D.BF16, D.F32, D.F64)


def random_shape(d: Draw, rank: int, limit: int = MAX_NUMEL) -> Shape:
    dims: list[int] = []
    for _ in range(rank):
        dims.append(pick(d, [x for x in DIMS if x * numel(tuple(dims)) <= limit]))
    return tuple(dims)


def _factor(d: Draw, total: int) -> Shape:
    """A random shape of rank 1..3 holding ``total`` (a power of two) elements."""
    rank = d.int(1, 3)
    log = total.bit_length() - 1
    cuts = sorted(d.int(0, log) for _ in range(rank - 1))
    edges = [0, *cuts, log]
    return tuple(1 << (edges[i + 1] - edges[i]) for i in range(rank))


class ShapeOps:
    d: Draw

    if TYPE_CHECKING:

        def value(self, shape: Shape, depth: int, root: bool = False) -> Node: ...
        def leaf(self, shape: Shape) -> Node: ...
        def cast_to(self, x: Node, t: DType) -> Node: ...
        def integer(self, x: Node, no_bool: bool = True) -> Node: ...
        def no_bool(self, x: Node) -> Node: ...
        def layout(self, shape: Shape) -> Layout: ...
        def number(self, t: DType) -> int | float: ...

        combine: set[str]

    def reduce(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        kind = pick(d, ("sum", "max", "min", "argmax", "argmin", "xor_sum"))
        ones = [k for k, s in enumerate(shape) if s == 1]
        keep = bool(ones) and coin(d, 35)
        axis: int | None
        if keep and len(ones) == len(shape) and coin(d, 30):
            src, axis = random_shape(d, len(shape)), None
        elif keep:
            axis = pick(d, ones)
            src = (*shape[:axis], pick(d, DIMS[1:]), *shape[axis + 1 :])
        elif not shape and coin(d, 50):
            src, axis = random_shape(d, d.int(1, 3), 64), None
        else:
            axis = d.int(0, len(shape))
            src = (*shape[:axis], pick(d, DIMS), *shape[axis:])
        if len(src) > 3 or numel(src) > MAX_NUMEL:
            return self.value(shape, depth)
        x = self.value(src, depth)
        if x.dtype.is_bool or (kind in ("argmax", "argmin") and x.dtype.is_bool):
            x = self.cast_to(x, D.I8)
        if axis is None and kind in ("argmax", "argmin"):
            kind = "max"  # Triton's argmax/argmin need an axis
        if kind == "xor_sum":
            x = self.integer(x)
        if kind == "sum" and x.dtype.is_float and not root:
            kind = "max"
        t = {"sum": D.sum_type(x.dtype), "argmax": D.I32, "argmin": D.I32}.get(
            kind, D.minmax_reduce_type(x.dtype) if kind in ("max", "min") else x.dtype
        )
        return Node("reduce", (x,), t, shape, (kind, axis, keep, coin(d, 20)))

    def scan(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        kind = pick(d, SCANS)
        x = self.no_bool(self.value(shape, depth))
        if kind in ("scan_xor", "scan_or"):
            x = self.integer(x)
        if x.dtype.is_float and (
            kind == "scan_add" or (kind in ("cumsum", "cumprod") and not root)
        ):
            kind = "scan_max"  # float sums are approximate: only at the root
        t = x.dtype
        if kind in ("cumsum", "cumprod") and t == D.BF16:
            t = D.F32
        if kind == "cumsum":
            t = D.sum_type(t)
        if kind.startswith("scan_"):
            self.combine.add(kind[5:])
        return Node("scan", (x,), t, shape, (kind, d.int(0, len(shape) - 1), coin(d, 30)))

    def reshape(self, shape: Shape, depth: int, root: bool) -> Node:
        x = self.value(_factor(self.d, numel(shape)), depth)
        return Node("reshape", (x,), x.dtype, shape, (shape,))

    def permute(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        if len(shape) < 2:
            return self.reshape(shape, depth, root)
        rest = list(range(len(shape)))
        perm = tuple(rest.pop(d.int(0, len(rest) - 1)) for _ in range(len(shape)))
        src = [0] * len(shape)
        for i, p in enumerate(perm):
            src[p] = shape[i]
        x = self.value(tuple(src), depth)
        return Node("permute", (x,), x.dtype, shape, (perm, coin(d, 50)))

    def broadcast(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        ones = [k for k, s in enumerate(shape) if s == 1]
        if ones and coin(d, 50):
            axis = pick(d, ones)
            x = self.value(shape[:axis] + shape[axis + 1 :], depth)
            return Node("expand_dims", (x,), x.dtype, shape, (axis, coin(d, 50)))
        src = tuple(1 if coin(d, 50) else s for s in shape)
        x = self.value(src, depth)
        return Node("broadcast_to", (x,), x.dtype, shape, (shape,))

    def join_split(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        if len(shape) >= 2 and shape[-1] == 2 and coin(d, 50):
            a = self.value(shape[:-1], depth)
            b = self.cast_to(self.value(shape[:-1], depth), a.dtype)
            return Node("join", (a, b), a.dtype, shape)
        if shape[-1] % 2 == 0 and coin(d, 40):
            half = (*shape[:-1], shape[-1] // 2)
            a = self.value(half, depth)
            b = self.cast_to(self.value(half, depth), a.dtype)
            return Node("interleave", (a, b), a.dtype, shape)
        if len(shape) >= 3 or 2 * numel(shape) > MAX_NUMEL:
            return self.value(shape, depth)
        x = self.value((*shape, 2), depth)
        return Node("split", (x,), x.dtype, shape, (d.int(0, 1),))

    def cat_flip(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        if shape[0] % 2 == 0 and coin(d, 50):
            half = (shape[0] // 2, *shape[1:])
            a = self.value(half, depth)
            b = self.cast_to(self.value(half, depth), a.dtype)
            return Node("cat", (a, b), a.dtype, shape)
        x = self.value(shape, depth)
        return Node("flip", (x,), x.dtype, shape, (d.int(0, len(shape) - 1),))

    def math(self, shape: Shape, depth: int, root: bool) -> Node:
        d = self.d
        if not root:
            return self.value(shape, depth)
        fn = pick(d, MATH)
        t = pick(d, (D.F32, D.F64))
        count = {"div_rn": 2, "fma": 3}.get(fn, 1)
        args = tuple(self.cast_to(self.value(shape, depth), t) for _ in range(count))
        return Node("math", args, t, shape, (fn,))

    def sort_gather(self, shape: Shape, depth: int, root: bool) -> Node:
        """tl.sort / tl.topk / tl.gather (library functions on 1-D and 2-D tiles)."""
        d = self.d
        if not 1 <= len(shape) <= 2 or numel(shape) > 64:  # sorting networks compile slowly
            return self.value(shape, depth)
        kind = pick(d, ("sort", "gather", "topk"))
        if kind == "sort":
            x = self.no_bool(self.value(shape, depth))
            return Node("sort", (x,), x.dtype, shape, (coin(d, 50),))
        if kind == "topk":
            k = shape[-1]
            sizes = [n for n in DIMS if n >= k and numel(shape) // k * n <= 64] or [k]
            x = self.no_bool(self.value((*shape[:-1], pick(d, sizes)), depth))
            return Node("topk", (x,), x.dtype, shape, (k,))
        axis = d.int(0, len(shape) - 1)
        size = pick(d, [n for n in DIMS if n * numel(shape) <= 1024])  # gather compares all
        src = self.no_bool(self.value((*shape[:axis], size, *shape[axis + 1 :]), depth))
        idx = self.integer(self.value(shape, depth))
        mask = Node("lit", (), D.I32, (), (size - 1,))
        idx = Node("bin", (idx, mask), idx.dtype, shape, ("&",))  # an index inside src
        return Node("gather", (src, idx), src.dtype, shape, (axis,))

    def dot(self, shape: Shape, depth: int, root: bool) -> Node:
        """tl.dot of 2-D or batched 3-D tiles, with or without ``acc``. Float dots add in an
        order of the backend's choosing: only at the root, as float sums."""
        d = self.d
        if len(shape) not in (2, 3):
            return self.value(shape, depth)
        *batch, m, n = shape
        t = pick(d, DOT_TYPES if root else (D.I8,))
        limit = max(MAX_NUMEL, numel(shape))  # a large root dot: operands as large
        sizes = [k for k in (*DIMS, 64) if numel((*batch, k)) * max(m, n) <= limit]
        k = pick(d, sizes or [1])
        a = self.cast_to(self.value((*batch, m, k), depth), t)
        b = self.cast_to(self.value((*batch, k, n), depth), t)
        out = D.I32 if t.is_int else D.F64 if t == D.F64 else D.F32
        same = [x for x in (a, b) if x.shape == shape and x.dtype == out]
        if same and coin(d, 20):  # the accumulator is an operand too: tl.dot(c, b, c)
            return Node("dot", (a, b, pick(d, same)), out, shape)
        if coin(d, 40):
            return Node("dot", (a, b, self.cast_to(self.value(shape, depth), out)), out, shape)
        return Node("dot", (a, b), out, shape)

    def stream_loop(self, shape: Shape, depth: int, root: bool) -> Node:
        """``acc = (acc sym x).to(acc's type)`` with ``x`` loaded in each trip from the next
        slice of an input of shape (trips, *shape): a loop streaming over memory, its mask's
        edge falling within some trip."""
        d = self.d
        sym = pick(d, ("+", "-", "*", "&", "|", "^"))
        init = self.value(shape, depth)
        init = self.integer(init) if sym in ("&", "|", "^") else self.no_bool(init)
        kinds = D.INTS if sym in ("&", "|", "^") else (*D.ALL, *D.FLOATS)
        trips = pick(d, (1, 2, 4, 8))
        t = pick(d, kinds)
        masked = coin(d, 50)
        other = self.number(t) if masked and coin(d, 50) else None
        inner = self.layout(shape)  # the layout of one trip's slice
        order = (0, *(a + 1 for a in inner.order)) if inner.order else ()
        layout = Layout(order, tuple(a + 1 for a in inner.flipped))
        x = Input(t, (trips, *shape), masked, other, layout)
        self.inputs.append(x)
        return Node("stream_loop", (init,), init.dtype, shape, (sym, len(self.inputs) - 1))

    def dot_loop(self, shape: Shape, depth: int, root: bool) -> Node:
        """The tutorials' matmul loop: ``acc = tl.dot(a, b, acc)`` with ``a`` and ``b`` loaded
        in each trip from inputs of shape (trips, M, K) and (trips, K, N), transposed or read
        backwards at times, masked at times (``other=0``, or lanes left undefined)."""
        d = self.d
        if len(shape) != 2:
            return self.value(shape, depth)
        m, n = shape
        t = pick(d, (D.F32, D.F16, D.BF16, D.I8) if root else (D.I8,))
        limit = max(MAX_NUMEL, numel(shape))  # a large root dot: operands as large
        k = pick(d, [x for x in (*DIMS, 64) if x * max(m, n) <= limit])
        trips = pick(d, (1, 2, 4))  # the inputs' first axis: a power of 2, as every tile's
        out = D.I32 if t.is_int else D.F32
        init = self.cast_to(self.value(shape, depth), out)
        operands = []
        for rows, cols in ((m, k), (k, n)):
            order = (0, 2, 1) if coin(d, 40) else ()
            flipped = tuple(a for a in (1, 2) if coin(d, 20))
            masked = coin(d, 30)
            other = 0 if masked and coin(d, 70) else None
            self.inputs.append(Input(t, (trips, rows, cols), masked, other, Layout(order, flipped)))
            operands.append(len(self.inputs) - 1)
        return Node("dot_loop", (init,), out, shape, (*operands, trips))
