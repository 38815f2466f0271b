"""The NumPy reference: evaluates a kernel's DAG for each program with the semantics tilec
documents (Triton's on NVIDIA GPUs): C integer arithmetic that wraps, IEEE float arithmetic
rounded once per operation in the computation type, Triton's promotion.

What C leaves undefined and tilec defines (docs/language/semantics.md: division by zero,
INT_MIN / -1, shifts by the width or more, float -> int of NaN/inf/out of range, a masked load
without ``other``: 0) is compared. Lanes with no single right value (the sign of a zero chosen by
a min/max reduction, NaN payloads through bitcasts, float sums that may overflow in some order)
are tracked and not compared. The root may be approximate (math functions, float sums, scans and
dots): ``Expect.ulps`` / ``Expect.atol``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dtypes as D
from .convert import bitcast, convert, literal
from .dtypes import DType
from .fusion import fma, fused_sides, product_of
from .numerics import as_ints, round_float, wrap
from .program import Case, Node, numel, walk
from .reference_ops import MATH_ULPS, dot_op, dot_sum, math_fn, reduce_op, scan_op

Value = tuple[np.ndarray, np.ndarray]  # values, undefined lanes

# Semantics that Triton defines and tilec is being changed to follow; CI (test_fuzz.py) skips
# the lanes they decide until the change lands, long runs (run.py) check them.
PENDING: frozenset[str] = frozenset()


@dataclass
class Expect:
    values: np.ndarray
    undefined: np.ndarray
    ulps: int = 0  # allowed distance in ulps of the output type
    atol: np.ndarray | None = None  # allowed absolute error per lane (float sums and scans)
    # what CUDA may differ from the CPU beyond that, per lane (docs/language/semantics.md): fp32
    # exp (and sigmoid through it) is ex2.approx(x·log2 e) as in Triton, whose product's rounding
    # costs up to |x|·2**-24 relative; fp32 log/log2 use lg2.approx, with an absolute bound
    gpu_atol: np.ndarray | None = None


def is_approximate(node: Node) -> bool:
    if node.op == "math":
        return True
    kind = node.attr[0] if node.op in ("reduce", "scan") else node.op
    return node.dtype.is_float and kind in ("sum", "cumsum", "cumprod", "dot", "dot_loop")


class Evaluator:
    def __init__(
        self, case: Case, inputs: list[np.ndarray], pid: int, pending: frozenset[str] = frozenset()
    ) -> None:
        self.pending = pending
        self.case = case
        self.inputs = inputs
        self.pid = pid
        self.atol: np.ndarray | None = None
        self.gpu_atol: np.ndarray | None = None
        self.ulps = 0
        self.fused = fused_sides(case.kernel.root)

    def run(self) -> Value:
        memo: dict[int, Value] = {}
        for node in walk(self.case.kernel.root):
            if node.op in ("lit", "const"):
                continue
            memo[id(node)] = self.node(node, memo)
        return memo[id(self.case.kernel.root)]

    def operand(self, node: Node, t: DType, shape: tuple[int, ...], memo: dict) -> Value:
        """An operand converted to ``t`` and broadcast to ``shape``."""
        if node.is_literal:
            return literal(node.attr[-1], t, shape), np.zeros(shape, bool)
        x, u = memo[id(node)]
        y, u2 = convert(x, node.dtype, t)
        return np.broadcast_to(y, shape).copy(), np.broadcast_to(u | u2, shape).copy()

    def node(self, n: Node, memo: dict) -> Value:  # one case per op
        op, a, shape = n.op, n.args, n.shape
        none = np.zeros(shape, bool)
        if op == "load":
            return self.load(n)
        if op == "pid":
            return np.array(self.pid, np.int32), none
        if op == "scalar":
            _, t, v = next(s for s in self.case.kernel.scalars if s[0] == n.attr[0])
            return literal(v, t, ()), none
        if op == "arange":
            axis = n.attr[0]
            idx = np.arange(shape[axis], dtype=np.int32).reshape(
                [-1 if k == axis else 1 for k in range(len(shape))]
            )
            return np.broadcast_to(idx, shape).copy(), none
        if op == "full":
            return literal(n.attr[0], n.dtype, shape), none
        if op in ("bin", "cmp", "minmax"):
            return self.binary(n, memo)
        if op == "where":
            c, uc = self.operand(a[0], a[0].dtype, shape, memo)
            c = c != 0
            x, ux = self.operand(a[1], n.dtype, shape, memo)
            y, uy = self.operand(a[2], n.dtype, shape, memo)
            return np.where(c, x, y), uc | np.where(c, ux, uy)
        if op == "unary":
            return self.unary(n, memo)
        if op == "cast":
            x, u = memo[id(a[0])]
            t, is_bitcast, *rounding = n.attr
            if is_bitcast:
                y, u2 = bitcast(x, a[0].dtype, t)
            else:
                y, u2 = convert(x, a[0].dtype, t, *rounding)
            return y, u | u2
        if op == "reduce":
            x, u = memo[id(a[0])]
            return reduce_op(n, x, u, a[0].dtype, self)
        if op == "scan":
            x, u = memo[id(a[0])]
            return scan_op(n, x, u, a[0].dtype, self)
        if op == "stream_loop":
            return self.stream_loop(n, memo)
        if op == "gather_load":
            return self.gather_load(n, memo)
        if op == "loop":
            return self.loop(n, memo)
        if op == "dot":
            return dot_op(n, [memo[id(x)] for x in a], self)
        if op == "dot_loop":
            loaded = [self.load(Node("load", (), n.dtype, (), (k,))) for k in n.attr[:2]]
            (xa, ua), (xb, ub) = loaded
            products = [((xa[i], ua[i]), (xb[i], ub[i])) for i in range(n.attr[2])]
            return dot_sum(n.dtype, products, memo[id(a[0])], self)
        if op == "math":
            args = [memo[id(x)] for x in a]
            self.ulps = MATH_ULPS[n.attr[0]] + (1 if n.dtype == D.F64 else 0)
            if n.attr[0] == "fma" and n.dtype == D.F64:
                self.ulps = 0
            out = math_fn(n.attr[0], [x for x, _ in args], n.dtype)
            if n.attr[0] in ("exp", "sigmoid") and n.dtype == D.F32:
                # ex2.approx(x * log2e), as Triton: the fp32 product and constant lose up to
                # 1.25 |x| 2**-24 of the result (relative), ex2.approx 2 ulp, the CPU its own
                # ulp (docs/language/semantics.md)
                x = np.abs(args[0][0].astype(np.float64))
                with np.errstate(invalid="ignore"):
                    self.gpu_atol = np.abs(out.astype(np.float64)) * (x * 2.0**-23 + 2.0**-21)
            elif n.attr[0] == "exp2" and n.dtype == D.F32:
                # ex2.approx.ftz, as Triton: a subnormal result is 0 on CUDA
                self.gpu_atol = np.full(n.shape, 2.0**-126)
            elif n.attr[0] in ("log", "log2") and n.dtype == D.F32:
                self.gpu_atol = np.full(n.shape, 2.0**-22)  # lg2.approx: an absolute bound
            undefined = np.logical_or.reduce([u for _, u in args])
            if "sincos-range" in self.pending and n.attr[0] in ("sin", "cos") and n.dtype == D.F32:
                undefined = undefined | ~(np.abs(args[0][0]) <= 1e5)
            return out, undefined
        return self.shape_op(n, memo)

    def shape_op(self, n: Node, memo: dict) -> Value:
        op, shape = n.op, n.shape
        vals = [memo[id(x)] for x in n.args]

        def both(f):  # applies a shape function to values and lanes
            return tuple(np.ascontiguousarray(f(k)) for k in (0, 1))

        if op == "reshape":
            return both(lambda k: vals[0][k].reshape(shape))
        if op == "permute":
            return both(lambda k: np.transpose(vals[0][k], n.attr[0]))
        if op == "expand_dims":
            return both(lambda k: np.expand_dims(vals[0][k], n.attr[0]))
        if op == "broadcast_to":
            return both(lambda k: np.broadcast_to(vals[0][k], shape))
        if op == "join":
            return both(lambda k: np.stack([vals[0][k], vals[1][k]], axis=-1))
        if op == "interleave":
            return both(lambda k: np.stack([vals[0][k], vals[1][k]], axis=-1).reshape(shape))
        if op == "split":
            return both(lambda k: vals[0][k][..., n.attr[0]])
        if op == "cat":
            return both(lambda k: np.concatenate([vals[0][k], vals[1][k]], axis=0))
        if op == "flip":
            return both(lambda k: np.flip(vals[0][k], n.attr[0]))
        if op == "gather":
            (x, ux), (i, ui) = vals
            i = i.astype(np.int64)
            axis = n.attr[0]
            got = np.take_along_axis(x, i, axis)
            return got, np.take_along_axis(ux, i, axis) | ui
        return _sort(n, *vals[0])

    def loop(self, n: Node, memo: dict) -> Value:
        """Each trip one binary op on the carried value, converted back to its type."""
        init, step = n.args
        sym, bounds, form, _ = n.attr
        acc, u = memo[id(init)]
        carried = Node("carried", (), init.dtype, n.shape)
        t = D.computation_type(init.dtype, False, step.dtype, step.is_literal, False)
        body = Node("bin", (carried, step), t, n.shape, (sym,))
        for i in range(*bounds):
            if form == 1 and i % 2:
                continue
            v, u = self.binary(body, {**memo, id(carried): (acc, u)})
            acc, wrong = convert(v, t, init.dtype)
            u = u | wrong
        return acc, u

    def stream_loop(self, n: Node, memo: dict) -> Value:
        """Each trip one binary op of the carried value and the trip's slice of the input."""
        (init,) = n.args
        sym, k = n.attr
        x = self.case.kernel.inputs[k]
        acc, u = memo[id(init)]
        xs, us = self.load(Node("load", (), x.dtype, x.shape, (k,)))
        carried, loaded = Node("carried", (), init.dtype, n.shape), Node("x", (), x.dtype, n.shape)
        t = D.computation_type(init.dtype, False, x.dtype, False, False)
        body = Node("bin", (carried, loaded), t, n.shape, (sym,))
        for i in range(x.shape[0]):
            v, u = self.binary(body, {**memo, id(carried): (acc, u), id(loaded): (xs[i], us[i])})
            acc, wrong = convert(v, t, init.dtype)
            u = u | wrong
        return acc, u

    def gather_load(self, n: Node, memo: dict) -> Value:
        k, size, masked, other = n.attr
        idx, u = memo[id(n.args[0])]
        offs = self.pid * size + np.asarray(as_ints(np.asarray(idx)) & (size - 1), np.int64)
        data = np.asarray(self.inputs[k][offs])
        outside = offs >= self.case.bounds[k]
        if not masked:
            return data, u
        fill = literal(0 if other is None else other, n.dtype, n.shape)
        return np.where(outside, fill, data), u

    def load(self, n: Node) -> Value:
        k = n.attr[0]
        x = self.case.kernel.inputs[k]
        offs = self.pid * numel(x.shape) + x.layout.offsets(x.shape)
        data = self.inputs[k][offs]
        inside = offs < self.case.bounds[k]
        if not x.masked:
            return data.copy(), ~inside
        # without ``other`` a masked-off lane is 0 on tilec's backends (docs/language/
        # semantics.md; Triton leaves it undefined)
        fill = literal(0 if x.other is None else x.other, x.dtype, x.shape)
        return np.where(inside, data, fill), np.zeros(x.shape, bool)

    def binary(self, n: Node, memo: dict) -> Value:
        a, b = n.args
        sym = n.attr[0]
        div = sym in ("/", "//", "%")
        t = D.computation_type(a.dtype, a.is_literal, b.dtype, b.is_literal, div)
        if n.op == "minmax" or (sym == "/" and t.is_int):
            t = n.dtype
        x, ux = self.operand(a, t, n.shape, memo)
        y, uy = self.operand(b, t, n.shape, memo)
        undefined = ux | uy
        if n.op == "cmp":
            with np.errstate(invalid="ignore"):
                return _compare(sym, x, y), undefined
        if n.op == "minmax":
            return _minmax(n, x, y, t, undefined)
        if id(n) in self.fused:
            return self.fused_add(n, memo), undefined
        if t.is_float:
            return _float_binary(sym, x, y, t), undefined
        # Triton: >> is arithmetic when its tensor operand (the left one, else the right) is
        # signed, even where promotion made the computation type unsigned
        decides = b if a.is_literal else a
        return _int_binary(sym, x, y, t, undefined, arithmetic=decides.dtype.kind == "i")

    def fused_add(self, n: Node, memo: dict) -> np.ndarray:
        """``a * b + c``, ``a * b - c`` or ``c - a * b`` rounded once (fusion.py)."""
        side = self.fused[id(n)]
        mul = product_of(n.args[side])
        a, b = (self.operand(x, n.dtype, n.shape, memo)[0] for x in mul.args)
        c = self.operand(n.args[1 - side], n.dtype, n.shape, memo)[0]
        if n.attr[0] == "-":
            a, c = (a, -c) if side == 0 else (-a, c)
        return fma(a, b, c, n.dtype)

    def unary(self, n: Node, memo: dict) -> Value:
        x, u = memo[id(n.args[0])]
        fn, t = n.attr[0], n.dtype
        if fn in ("floor", "ceil"):
            return getattr(np, fn)(x), u
        if t.is_float:
            if fn == "neg" and "neg-zero" in self.pending:
                u = u | (x == 0)
            return (-x if fn == "neg" else np.abs(x)), u
        ints = as_ints(x)
        if fn == "neg":
            return wrap(-ints, t), u
        if fn == "invert":
            return wrap(~ints, t), u
        return (wrap(np.abs(ints), t) if t.kind == "i" else x.copy()), u


def _sort(n: Node, x: np.ndarray, u: np.ndarray) -> Value:
    """tl.sort / tl.topk along the last axis. A row holding NaN, or both zeros (equal, but of
    different bits), has no single right order: the whole row is undefined."""
    descending = n.attr[0] if n.op == "sort" else True
    r = np.sort(x, axis=-1)
    if descending:
        r = r[..., ::-1]
    bad = u.any(axis=-1)
    if n.dtype.is_float:
        w = x.astype(np.float64)
        zeros = (w == 0).any(axis=-1) & ((w == 0) & np.signbit(w)).any(axis=-1)
        bad = bad | np.isnan(w).any(axis=-1) | (zeros & ((w == 0) & ~np.signbit(w)).any(axis=-1))
    r = r[..., : n.shape[-1]]
    return np.ascontiguousarray(r), np.broadcast_to(bad[..., None], n.shape).copy()


def _compare(sym: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return {
        "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "==": np.equal, "!=": np.not_equal,
    }[sym](x, y)  # fmt: skip


def _minmax(n: Node, x: np.ndarray, y: np.ndarray, t: DType, undefined: np.ndarray) -> Value:
    which, nan_all = n.attr
    if not t.is_float:
        return (np.maximum if which == "maximum" else np.minimum)(x, y), undefined
    f = {("maximum", True): np.maximum, ("maximum", False): np.fmax,
         ("minimum", True): np.minimum, ("minimum", False): np.fmin}[(which, nan_all)]  # fmt: skip
    r = f(x, y)
    # -0.0 < +0.0 here (docs/language/semantics.md): min gives -0.0, max gives +0.0
    zeros = (x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))
    r = np.where(zeros, np.array(-0.0 if which == "minimum" else 0.0, dtype=r.dtype), r)
    return r, undefined


def _float_binary(sym: str, x: np.ndarray, y: np.ndarray, t: DType) -> np.ndarray:
    a, b = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):
        if t == D.F64:
            r = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
                 "%": np.fmod}[sym](a, b)  # fmt: skip
            return r
        # one rounding from float64 is exact for these (float64 holds 2p+2 bits)
        r = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "%": np.fmod}[sym](
            a, b
        )
    return round_float(r, t)


def _int_binary(
    sym: str, x: np.ndarray, y: np.ndarray, t: DType, undefined: np.ndarray, arithmetic: bool
) -> Value:
    a, b = as_ints(x), as_ints(y)
    if sym == "umulhi":  # unsigned whatever the type: the operands' bits as unsigned numbers
        mask = (1 << t.bits) - 1
        return wrap(((a & mask) * (b & mask)) >> t.bits, t), undefined
    if sym in ("//", "%"):
        # docs/language/semantics.md: x // 0 is all ones, x % 0 is x, INT_MIN // -1 wraps
        zero = b == 0
        c = np.where(zero, 1, b)
        q = np.array([abs(p) // abs(r) * (1 if (p >= 0) == (r > 0) else -1)
                      for p, r in zip(a.reshape(-1), c.reshape(-1))], dtype=object)  # fmt: skip
        q = q.reshape(a.shape)
        if sym == "//":
            return wrap(np.where(zero, -1, q), t), undefined
        return wrap(np.where(zero, a, a - q * c), t), undefined
    if sym in ("<<", ">>"):
        # an amount is read as unsigned; one of the width or more shifts everything out
        out = (b < 0) | (b >= t.bits)
        c = np.where(out, t.bits, b)
        if sym == ">>" and arithmetic and t.kind == "u":  # the bits shift as a signed value
            a = np.where(a >= 1 << (t.bits - 1), a - (1 << t.bits), a)
        r = np.array([p << s if sym == "<<" else p >> s
                      for p, s in zip(a.reshape(-1), c.reshape(-1))], dtype=object)  # fmt: skip
        return wrap(r.reshape(a.shape), t), undefined
    r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "&": lambda: a & b,
         "|": lambda: a | b, "^": lambda: a ^ b}[sym]()  # fmt: skip
    return wrap(r, t), undefined


def expected_output(
    case: Case, inputs: list[np.ndarray], initial: np.ndarray, pending: frozenset[str] = frozenset()
) -> Expect:
    """The whole output buffer after the launch, from its ``initial`` contents. Lanes that
    depend on a semantics named in ``pending`` (PENDING: fixes under way) are not compared."""
    k = case.kernel
    t = k.out_dtype
    out = initial.copy()
    undefined = np.zeros(out.shape, bool)
    atol = np.zeros(out.shape) if is_approximate(k.root) else None
    gpu_atol = np.zeros(out.shape)
    size = numel(k.root.shape)
    ulps = 0
    if k.scribble >= 0:  # each program overwrites its own block before its store
        x = k.inputs[k.scribble]
        for pid in range(k.grid):
            offs = (pid * numel(x.shape) + x.layout.offsets(x.shape)).reshape(-1)
            inside = offs < case.bounds[k.scribble] if x.masked else np.ones(offs.shape, bool)
            out[offs[inside]] = literal(1, t, ())
    for pid in range(k.grid):
        ev = Evaluator(case, inputs, pid, pending)
        v, u = ev.run()
        y, u2 = convert(v, k.root.dtype, t)
        y, u = y.reshape(-1), (u | u2).reshape(-1)
        ulps = max(ulps, ev.ulps)
        base = 0 if k.store != "store" else pid * size
        lanes = base + k.out_layout.offsets(k.root.shape).reshape(-1)
        live = lanes < case.bounds[-1]
        lanes, y, u = lanes[live], y[live], u[live]
        if k.store == "store":
            out[lanes] = y
            undefined[lanes] = u
            if atol is not None and ev.atol is not None:
                atol[lanes] = ev.atol.reshape(-1)[live]
            if ev.gpu_atol is not None:
                gpu_atol[lanes] = np.broadcast_to(ev.gpu_atol, k.root.shape).reshape(-1)[live]
        else:
            old = out[lanes].copy()
            out[lanes], bad = _atomic(k.store, old, y, t, lanes)
            undefined[lanes] |= u | bad
            if k.returns_old:  # what each lane held before: defined whatever it stored
                out[size + lanes] = old
    return Expect(out, undefined, ulps, atol, gpu_atol)


def _atomic(kind: str, old: np.ndarray, v: np.ndarray, t: DType, lanes: np.ndarray) -> Value:
    bad = np.zeros(v.shape, bool)
    if kind == "atomic_xchg":
        return v.copy(), bad
    if kind == "atomic_cas":  # every lane is live; every third compares with old + 1, a miss
        return np.where(lanes % 3 == 0, old, v), bad
    if t.is_float:
        bad = np.isnan(v) | ((v == 0) & (old == 0))
        if kind == "atomic_add":
            return round_float(old.astype(np.float64) + v, t), np.isnan(v)
        return (np.fmax if kind == "atomic_max" else np.fmin)(old, v), bad
    a, b = as_ints(old), as_ints(v)
    r = {"atomic_add": lambda: a + b, "atomic_and": lambda: a & b, "atomic_or": lambda: a | b,
         "atomic_xor": lambda: a ^ b, "atomic_max": lambda: np.maximum(a, b),
         "atomic_min": lambda: np.minimum(a, b)}[kind]()  # fmt: skip
    return wrap(r, t), bad
