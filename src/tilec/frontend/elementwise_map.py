"""``tl.map_elementwise``: a scalar @jit function applied to every element of some tiles.

The function is inlined once with whole tiles for its scalar arguments: its arithmetic is then
elementwise already. An ``if`` (or a conditional expression) whose condition differs per
element evaluates both branches and selects per element what the scalar branch would have
computed (``masked_if``). Evaluating the branch a scalar call would skip is harmless for
arithmetic (division by zero is defined in tilec's lowering), but not for memory accesses,
atomics, prints or asserts, so a mapped function doing any of those is refused; so is a loop
whose condition differs per element. With ``pack=n`` the function takes n consecutive
elements (along the last dimension) of each argument and returns n values per result.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import TileTypeError, UnsupportedFeature
from ..ir import ops as O
from ..ir.core import Op
from . import semantics as S
from .builtin import builtin
from .builtins_math import where
from .builtins_shape import _const_int, _reshape, join, split, tensor_arg
from .values import Tensor, leaves, same_structure, unwrap
from .visitor import Visitor

# what the branch a scalar call skips would do wrongly if it ran for every element
_EFFECTS = {
    O.LoadOp: "load", O.StoreOp: "store", O.AtomicRMWOp: "atomic", O.AtomicCASOp: "atomic_cas",
    O.PrintOp: "print", O.AssertOp: "device_assert",
}  # fmt: skip


@builtin()
def map_elementwise(ctx: Any, scalar_fn: Any, *args: Any, pack: Any = 1) -> Any:
    """``scalar_fn`` applied to each element (each ``pack`` elements) of the broadcast ``args``."""
    fn = unwrap(scalar_fn)
    if not getattr(fn, "__tilec_jit__", False) and not getattr(fn, "__tilec_library__", False):
        raise TileTypeError(f"map_elementwise needs a @jit function, got {S.describe(fn)}")
    n = _const_int(pack, "pack")
    tiles = _broadcast_all(ctx, [tensor_arg(ctx, a, f"argument {i}") for i, a in enumerate(args)])
    shape = tiles[0].shape if tiles else ()
    if n < 1 or n & (n - 1) or (n > 1 and (not shape or shape[-1] % n)):
        raise TileTypeError(
            f"map_elementwise: pack must be a power of two dividing the last dimension, got "
            f"pack={n} for shape {list(shape)}"
        )
    pieces = [p for t in tiles for p in _unpack(ctx, t, n)]
    with _mapping(ctx):
        results = ctx.call(fn, pieces, {})
    single = not isinstance(results, tuple)
    flat = [results] if single else list(results)
    if len(flat) % n:
        raise TileTypeError(f"map_elementwise: pack={n} needs a multiple of {n} results")
    part = pieces[0].shape if pieces else ()
    flat = [_result(ctx, r, part) for r in flat]
    out = [_pack(ctx, flat[i : i + n]) for i in range(0, len(flat), n)]
    return out[0] if len(out) == 1 and single else tuple(out)


def _broadcast_all(ctx: Any, tiles: list[Tensor]) -> list[Tensor]:
    shape: tuple[int, ...] = ()
    for t in tiles:
        shape = S.broadcast_shapes(shape, t.shape)
    return [S.broadcast_to(ctx.b, t, shape) for t in tiles]


def _unpack(ctx: Any, t: Tensor, n: int) -> list[Tensor]:
    """``n`` tiles, the k-th holding element ``g * n + k`` of each group ``g`` of ``t``'s last
    dimension: pairs split into even and odd elements, recursively."""
    if n == 1:
        return [t]
    *lead, last = t.shape
    even, odd = split.impl(ctx, _reshape(ctx, t, (*lead, last // 2, 2), False))
    evens, odds = _unpack(ctx, even, n // 2), _unpack(ctx, odd, n // 2)
    return [x for pair in zip(evens, odds) for x in pair]


def _pack(ctx: Any, pieces: list[Tensor]) -> Tensor:
    """The inverse of ``_unpack``."""
    if len(pieces) == 1:
        return pieces[0]
    even, odd = _pack(ctx, pieces[0::2]), _pack(ctx, pieces[1::2])
    joined = join.impl(ctx, even, odd)
    *lead, last, _ = joined.shape
    return _reshape(ctx, joined, (*lead, last * 2), False)


def _result(ctx: Any, r: Any, shape: tuple[int, ...]) -> Tensor:
    r = unwrap(r)
    if not isinstance(r, Tensor) and not S.is_number(r):
        raise TileTypeError(f"map_elementwise: the function returned {S.describe(r)}")
    t = tensor_arg(ctx, r, "result")
    if t.shape not in ((), shape):
        raise TileTypeError(
            f"map_elementwise: the function returned a tile of shape {list(t.shape)}; it "
            "must return scalars"
        )
    return S.broadcast_to(ctx.b, t, shape)


@contextmanager
def _mapping(ctx: Any) -> Iterator[None]:
    """Generate a mapped function's body, then refuse the side effects it may not have."""
    block = ctx.b.block
    before = set(block.ops)
    ctx.unit.mapping += 1
    try:
        yield
    finally:
        ctx.unit.mapping -= 1
    for top in block.ops:
        if top not in before:
            _check_pure(top)


def _check_pure(top: Op) -> None:
    for op in top.walk():
        what = _EFFECTS.get(type(op))
        if what is not None:
            raise UnsupportedFeature(
                f"tl.map_elementwise of a function that uses {what}: tilec evaluates both "
                "branches of its per-element conditions, so the mapped function must only "
                "compute (no memory access, atomics, prints or asserts)"
            )


# -- per-element conditions ------------------------------------------------------------------
def is_masked(cg: Visitor, cond: Any) -> bool:
    """True when ``cond`` is a per-element condition of a mapped function's body."""
    return cg.unit.mapping > 0 and isinstance(cond, Tensor) and bool(cond.shape)


def masked_if(
    cg: Visitor,
    cond: Tensor,
    then_stmts: list[ast.stmt],
    else_stmts: list[ast.stmt],
    returns: bool,
) -> None:
    """Both branches of an ``if`` generated in turn, each name they leave then selected per
    element. ``returns``: the branches hold the rest of the function (an early return)."""
    scopes = []
    for stmts in (then_stmts, else_stmts):
        saved = cg.scope
        cg.scope = dict(saved)
        cg.returned = False
        try:
            cg.visit_body(stmts)
            scopes.append(cg.scope)
        finally:
            cg.scope = saved
    then_scope, else_scope = scopes
    merged = {}
    for name, a in then_scope.items():
        if name in else_scope:
            merged[name] = select(cg, name, cond, a, else_scope[name])
    cg.scope = merged
    cg.returned = returns


def select(cg: Visitor, name: str, cond: Tensor, a: Any, c: Any) -> Any:
    """``a`` where ``cond`` else ``c``, leaf by leaf for tuples."""
    a, c = unwrap(a), unwrap(c)
    if a is c or (not leaves(a) and not leaves(c) and same_structure(a, c) and a == c):
        return a
    if isinstance(a, tuple) and isinstance(c, tuple) and len(a) == len(c):
        return tuple(select(cg, name, cond, x, y) for x, y in zip(a, c))
    if not all(isinstance(v, Tensor) or S.is_number(v) for v in (a, c)):
        shown = "the return value" if name == "$return" else f"'{name}'"
        raise TileTypeError(
            f"{shown} is {S.describe(a)} on one path and {S.describe(c)} on the other of a "
            "per-element condition in a mapped function; both must be numbers or tensors"
        )
    return where.invoke(cg, [cond, a, c], {})


def masked_ifexp(cg: Visitor, cond: Tensor, node: ast.IfExp) -> Any:
    return select(cg, "$ifexp", cond, cg.expr(node.body), cg.expr(node.orelse))
