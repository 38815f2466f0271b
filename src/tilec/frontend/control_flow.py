"""if / for / while: compile-time branches are resolved, run-time ones become region ops.

Names a branch or loop body reassigns are merged through IfOp results or carried through
ForOp/WhileOp block arguments (flattened to Tensors; structs and tuples included). A
compile-time constant that changes at run time becomes a tensor. An ``if`` holding a
``return`` takes the statements after it into both branches, so early returns need no jumps.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence
from typing import Any

from ..errors import TileTypeError, UnsupportedFeature, UnsupportedSyntax
from ..ir import ops as O
from ..ir import types as T
from ..ir.core import Block
from ..ir.types import ScalarType
from . import arith, elementwise_map
from . import const_pointers as C
from . import semantics as S
from .builtins_shape import unsplat
from .loop_invariants import prune_for, prune_while
from .ranges import range as tl_range
from .ranges import static_range
from .values import Tensor, leaves, rebuild, same_structure, unwrap
from .visitor import Visitor


def _runtime(x: Any) -> bool:
    return bool(leaves(x))


def _scalar_condition(cg: Visitor, cond: Tensor, what: str) -> Tensor:
    # as in Triton, a one-element tile (a load through ``p + tl.arange(0, 1)``, a reduction
    # with keep_dims) is a scalar condition
    return arith.to_bool(cg.b, unsplat(cg, cond, f"the condition of {what}"))


def _contains_return(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


# -- merging values from two paths ---------------------------------------------------------
def _as_like(cg: Visitor, value: Any, like: Any, block: Block) -> Any:
    """``value`` converted, inside ``block``, to the structure of ``like`` when it is a number."""
    if isinstance(like, Tensor) and S.is_number(value):
        with cg.b.at_end_of(block):
            t = S.constant(cg.b, value, like.dtype)  # type: ignore[arg-type]
            return S.broadcast_to(cg.b, t, like.shape)
    return value


def _unify(cg: Visitor, name: str, a: Any, c: Any, blocks: tuple[Block, Block]) -> tuple[Any, Any]:
    """Make two values of ``name`` from two paths the same structure and leaf types."""
    if S.is_number(a) and S.is_number(c) and not same_structure(a, c):
        ta, tc = S.python_type(a), S.python_type(c)
        t = ta if ta == tc else S.computation_type(ta, False, tc, False, False)
        with cg.b.at_end_of(blocks[0]):
            a = S.constant(cg.b, a, t)
        with cg.b.at_end_of(blocks[1]):
            c = S.constant(cg.b, c, t)
    a = _as_like(cg, a, c, blocks[0])
    c = _as_like(cg, c, a, blocks[1])
    shown = _SHOWN.get(name, f"'{name}'")
    if not same_structure(a, c):
        raise TileTypeError(
            f"{shown} is {S.describe(a)} on one path and {S.describe(c)} on "
            "the other; both must have the same kind of value"
        )
    for x, y in zip(leaves(a), leaves(c)):
        if x.type != y.type:
            raise TileTypeError(
                f"{shown} has type {x.type} on one path and {y.type} on the "
                "other; cast them to the same type"
            )
        C.check_same(cg.unit, name, x, y)
    return a, c


_SHOWN = {"$return": "the return value", "$ifexp": "the conditional expression"}


# -- if ------------------------------------------------------------------------------------
def visit_if(cg: Visitor, node: ast.If, rest: list[ast.stmt]) -> None:
    cond = unwrap(cg.expr(node.test))
    if not _runtime(cond):
        chosen = node.body if cond else node.orelse
        if not _contains_return(chosen):
            cg.visit_body(chosen)
            return
        # a return in the chosen branch (perhaps in a run-time if, which takes the statements
        # after it into its branches) must see the statements after this if as its own
        cg.visit_body(chosen + rest)
        cg.returned = True  # those statements are done
        return
    takes_rest = _contains_return(node.body) or _contains_return(node.orelse)
    then_stmts = node.body + rest if takes_rest else node.body
    else_stmts = node.orelse + rest if takes_rest else node.orelse
    if elementwise_map.is_masked(cg, cond):
        elementwise_map.masked_if(cg, cond, then_stmts, else_stmts, takes_rest)
        return
    cond = _scalar_condition(cg, cond, "an if statement")
    tmp = cg.b.if_(cond.value)
    then_scope = _branch(cg, tmp.then_block, then_stmts)
    else_scope = _branch(cg, tmp.else_block, else_stmts)
    merged = _merge_into_if(cg, tmp, then_scope, else_scope)
    cg.scope = merged
    cg.returned = takes_rest


def _branch(cg: Visitor, block: Block, stmts: list[ast.stmt]) -> dict[str, Any]:
    saved = cg.scope
    cg.scope = dict(saved)
    cg.returned = False
    try:
        with cg.b.at_end_of(block):
            cg.visit_body(stmts)
        return cg.scope
    finally:
        cg.scope = saved
        cg.returned = False


def _merge_into_if(
    cg: Visitor, tmp: O.IfOp, then_scope: dict[str, Any], else_scope: dict[str, Any]
) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    carried: list[tuple[str, Any]] = []
    then_vals: list[Tensor] = []
    else_vals: list[Tensor] = []
    blocks = (tmp.then_block, tmp.else_block)
    for name, a in then_scope.items():
        if name not in else_scope:
            continue  # defined on one path only: not visible after the if
        c = else_scope[name]
        if a is c or (not _runtime(a) and not _runtime(c) and same_structure(a, c)):
            merged[name] = a
            continue
        a, c = _unify(cg, name, a, c, blocks)
        carried.append((name, a))
        then_vals += leaves(a)
        else_vals += leaves(c)
    with cg.b.at_end_of(tmp.then_block):
        cg.b.yield_([t.value for t in then_vals])
    with cg.b.at_end_of(tmp.else_block):
        cg.b.yield_([t.value for t in else_vals])
    final = O.IfOp(tmp.operands[0], [t.type for t in then_vals], tmp.loc)
    _replace(tmp, final)
    results = iter(_marked(cg, then_vals, final.results))
    for name, template in carried:
        merged[name] = rebuild(template, results)
    return merged


def _marked(cg: Visitor, sources: Sequence[Tensor], values: Sequence[Any]) -> list[Tensor]:
    """``values`` as Tensors, each const pointer where its source value is one."""
    out = [Tensor(v) for v in values]
    for src, t in zip(sources, out):
        if C.is_const(cg.unit, src):
            C.mark(cg.unit, t)
    return out


def _replace(old: O.IfOp, new: O.IfOp) -> None:
    """Put ``new`` where ``old`` is, moving ``old``'s regions into it."""
    new.regions = old.regions
    for region in new.regions:
        region.parent = new
    block = old.parent
    assert block is not None
    block.ops[block.ops.index(old)] = new
    new.parent = block


def visit_ifexp(cg: Visitor, node: ast.IfExp) -> Any:
    cond = unwrap(cg.expr(node.test))
    if not _runtime(cond):
        return cg.expr(node.body if cond else node.orelse)
    if elementwise_map.is_masked(cg, cond):
        return elementwise_map.masked_ifexp(cg, cond, node)
    cond = _scalar_condition(cg, cond, "a conditional expression")
    tmp = cg.b.if_(cond.value)
    with cg.b.at_end_of(tmp.then_block):
        a = cg.expr(node.body)
    with cg.b.at_end_of(tmp.else_block):
        c = cg.expr(node.orelse)
    merged = _merge_into_if(cg, tmp, {"$ifexp": a}, {"$ifexp": c})
    return merged["$ifexp"]


# -- loops ---------------------------------------------------------------------------------
def assigned_names(stmts: list[ast.stmt]) -> list[str]:
    """Names a loop body (re)binds, in first-seen order."""
    seen: dict[str, None] = {}
    for stmt in stmts:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                seen.setdefault(n.id, None)
    return list(seen)


class _Carried:
    """The names a loop carries, with their initial values made run-time where needed."""

    def __init__(self, cg: Visitor, body: list[ast.stmt], exclude: str = "") -> None:
        self.names = [n for n in assigned_names(body) if n in cg.scope and n != exclude]
        self.init: dict[str, Any] = {}
        for n in self.names:
            v = unwrap(cg.scope[n])
            self.init[n] = S.to_tensor(cg.b, v) if S.is_number(v) else v

    def values(self) -> list[Tensor]:
        return [t for n in self.names for t in leaves(self.init[n])]

    def bind(self, cg: Visitor, args: list[Any]) -> None:
        it = iter(_marked(cg, self.values(), args))
        for n in self.names:
            cg.scope[n] = rebuild(self.init[n], it)

    def yielded(self, cg: Visitor) -> list[Tensor]:
        out: list[Tensor] = []
        for n in self.names:
            init, new = self.init[n], unwrap(cg.scope[n])
            if isinstance(init, Tensor) and S.is_number(new):
                new = S.broadcast_to(cg.b, S.constant(cg.b, new, init.dtype), init.shape)  # type: ignore[arg-type]
            if not same_structure(init, new):
                raise TileTypeError(
                    f"loop-carried '{n}' starts as {S.describe(init)} but becomes "
                    f"{S.describe(new)} in the loop body"
                )
            for x, y in zip(leaves(init), leaves(new)):
                if x.type != y.type:
                    raise TileTypeError(
                        f"loop-carried '{n}' has type {x.type} before the loop but "
                        f"{y.type} after an iteration; give it its final type "
                        "before the loop"
                    )
                C.check_same(cg.unit, n, x, y)
            out += leaves(new)
        return out


def _range_args(cg: Visitor, call: ast.Call) -> tuple[Any, list[Any], dict[str, Any]]:
    fn = unwrap(cg.expr(call.func))
    args = [unwrap(cg.expr(a)) for a in call.args]
    kwargs = {kw.arg: unwrap(cg.expr(kw.value)) for kw in call.keywords if kw.arg}
    return fn, args, kwargs


def visit_for(cg: Visitor, node: ast.For) -> None:
    if not isinstance(node.target, ast.Name):
        raise UnsupportedSyntax("a for loop's target must be a single name")
    it = node.iter
    if isinstance(it, ast.Call):
        fn, args, kwargs = _range_args(cg, it)
        if fn is static_range:
            return _unrolled(cg, node, static_range(*args, **kwargs).values())
        if fn is tl_range:
            r = tl_range(*args, **kwargs)
            return _runtime_for(cg, node, r.start, r.end, r.step, r.attributes())
        if fn is builtins.range:
            if kwargs:
                raise TileTypeError("range() takes no keyword arguments")
            r = tl_range(*args)
            return _runtime_for(cg, node, r.start, r.end, r.step, {})
    seq = unwrap(cg.expr(it))
    if isinstance(seq, (tuple, list)):
        return _unrolled(cg, node, list(seq))
    raise UnsupportedSyntax(
        "for loops must iterate over range(), tl.range(), tl.static_range() or a compile-time tuple"
    )


# Static loops are unrolled into the IR; past this many iterations in one kernel (nested
# loops multiply) the IR would take minutes and gigabytes to build, so the kernel is refused.
MAX_UNROLLED_ITERATIONS = 1 << 14


def _unrolled(cg: Visitor, node: ast.For, values: Sequence[Any]) -> None:
    cg.unit.unrolled += len(values)
    if cg.unit.unrolled > MAX_UNROLLED_ITERATIONS:
        raise UnsupportedFeature(
            f"static loops unrolled into more than {MAX_UNROLLED_ITERATIONS} iterations in one "
            f"kernel (this loop has {len(values)}); use tl.range for a run-time loop"
        )
    for v in values:
        cg.scope[node.target.id] = v  # type: ignore[attr-defined]
        cg.visit_body(node.body)


def _bounds(cg: Visitor, start: Any, end: Any, step: Any) -> tuple[Tensor, Tensor, Tensor, bool]:
    b = cg.b
    vals = [S.to_tensor(b, v) for v in (start, end, step)]
    types = [v.dtype for v in vals]
    for t in types:
        if not (isinstance(t, ScalarType) and t.is_int()) or t.is_bool():
            raise TileTypeError(f"range bounds must be integers, got {t}")
    common = types[0]
    for t in types[1:]:
        common = S.integer_promote(common, t)  # type: ignore[arg-type]
    lb, ub, st = (S.cast(b, v, common) for v in vals)
    for v in (lb, ub, st):
        if v.shape:
            raise TileTypeError("range bounds must be scalars")
    negative = S.is_number(step) and step < 0
    if S.is_number(step) and step == 0:
        raise TileTypeError("range() step must not be zero")
    return lb, ub, st, negative


def _runtime_for(
    cg: Visitor, node: ast.For, start: Any, end: Any, step: Any, attrs: dict[str, Any]
) -> None:
    b = cg.b
    lb, ub, st, negative = _bounds(cg, start, end, step)
    first = lb
    if negative:  # iterate k = 0 .. ceil((lb - ub) / -step) and map back to lb + k * step
        pos = arith.neg(b, st)
        trips = arith.floordiv(b, arith.add(b, arith.sub(b, lb, ub), arith.sub(b, pos, 1)), pos)
        lb, ub, st = S.constant(b, 0, lb.dtype), trips, S.constant(b, 1, lb.dtype)  # type: ignore[arg-type]
    target = node.target.id  # type: ignore[attr-defined]
    carried = _Carried(cg, node.body, exclude=target)
    loop = b.for_(lb.value, ub.value, st.value, [t.value for t in carried.values()], **attrs)
    saved = cg.scope
    cg.scope = dict(saved)
    with b.at_end_of(loop.body):
        iv = Tensor(loop.induction_var)
        if negative:
            iv = arith.add(b, first, arith.mul(b, iv, step))
        cg.scope[target] = iv
        carried.bind(cg, loop.body.args[1:])
        cg.visit_body(node.body)
        b.yield_([t.value for t in carried.yielded(cg)])
    cg.scope = saved
    carried.bind(cg, prune_for(loop))


def visit_while(cg: Visitor, node: ast.While) -> None:
    b = cg.b
    carried = _Carried(cg, node.body)
    loop = b.while_([t.value for t in carried.values()])
    saved = cg.scope
    cg.scope = dict(saved)
    with b.at_end_of(loop.before):
        carried.bind(cg, loop.before.args)
        cond = unwrap(cg.expr(node.test))
        if not _runtime(cond):
            if cond:
                raise UnsupportedFeature(
                    "a while loop whose condition is always true needs "
                    "'break', which kernels do not support"
                )
            cond = S.constant(b, False, T.int1)
        cond = _scalar_condition(cg, cond, "a while loop")
        b.condition(cond.value, list(loop.before.args))
    cg.scope = dict(saved)
    with b.at_end_of(loop.after):
        carried.bind(cg, loop.after.args)
        cg.visit_body(node.body)
        b.yield_([t.value for t in carried.yielded(cg)])
    cg.scope = saved
    carried.bind(cg, prune_while(loop))


__all__ = ["visit_for", "visit_if", "visit_ifexp", "visit_while"]
