"""Loop nests over a tile's shape, with the innermost loop split at a range mask.

A mask such as ``offs < n`` (offs contiguous along the innermost index, n constant along it) is
true on a prefix of each row. The nest runs that prefix with the mask known true (plain loads and
stores the loop vectorizer turns into SIMD) and the rest with it known false (or skips it). The
innermost loop runs the tile's last axis unless the caller names another (inner_axis.py): a
"row" is then the line of elements along that axis.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from llvmlite import ir

from ...ir.types import Kind, ScalarType
from ..llvm import types as T
from .tiles import Index, MapTile, Scope, Tile, ViewTile

Body = Callable[[Scope, Index], None]


@contextlib.contextmanager
def counted_loop(
    b: ir.IRBuilder,
    lo: ir.Value,
    hi: ir.Value,
    name: str = "i",
    unroll: bool = True,
    vectorize: bool = True,
    width: int | None = None,
) -> Iterator[ir.Value]:
    """``for i in range(lo, hi)`` over i64; the body is emitted inside the ``with``.

    ``unroll=False`` keeps LLVM from unrolling a rarely run loop, which keeps code size and
    compile time down; ``vectorize=False`` also keeps the loop vectorizer away from it;
    ``width`` asks the vectorizer for that many lanes."""
    fn = b.function
    pre = b.block
    header = fn.append_basic_block(f"{name}.head")
    body = fn.append_basic_block(f"{name}.body")
    exit_ = fn.append_basic_block(f"{name}.exit")
    b.branch(header)
    b.position_at_end(header)
    i = b.phi(T.i64, name=name)
    i.add_incoming(lo, pre)
    b.cbranch(b.icmp_signed("<", i, hi), body, exit_)
    b.position_at_end(body)
    yield i
    nxt = b.add(i, ir.Constant(T.i64, 1))
    nxt.flags.extend(["nuw", "nsw"])
    i.add_incoming(nxt, b.block)
    latch = b.branch(header)
    if not unroll or not vectorize or width:
        latch.set_metadata("llvm.loop", _loop_options(b.module, unroll, vectorize, width))
    b.position_at_end(exit_)


def _loop_options(
    module: ir.Module, unroll: bool, vectorize: bool, width: int | None
) -> ir.MDValue:
    # LLVM wants a loop ID to be a distinct node naming itself first, which llvmlite cannot
    # build: a unique "tilec.loop.N" string stands in and the compiler rewrites it in the text
    def option(*values: ir.Value) -> ir.MDValue:
        return module.add_metadata(list(values))

    options = []
    if not unroll or not vectorize:
        options.append(option(ir.MetaDataString(module, "llvm.loop.unroll.disable")))
    if not vectorize:
        options.append(
            option(ir.MetaDataString(module, "llvm.loop.vectorize.enable"), ir.Constant(T.i1, 0))
        )
    elif width:
        name = ir.MetaDataString(module, "llvm.loop.vectorize.width")
        options.append(option(name, ir.Constant(T.i32, width)))
    tag = ir.MetaDataString(module, f"{LOOP_ID_TAG}{len(module.metadata)}")
    return module.add_metadata([tag, *options])


LOOP_ID_TAG = "tilec.loop."
_LOOP_ID = re.compile(r'^(![0-9]+) = !\{ ?!"' + re.escape(LOOP_ID_TAG) + r'[0-9]+", ', re.M)


def self_referencing_loop_ids(text: str) -> str:
    """Turn the stand-in loop IDs of :func:`_loop_options` into ``distinct !{!N, ...}``."""
    return _LOOP_ID.sub(lambda m: f"{m.group(1)} = distinct !{{ {m.group(1)}, ", text)


@dataclass(frozen=True)
class RangeForm:
    """mask[..., i] == all(uniform) and (lhs[..., i] < rhs) (``<=`` when ``inclusive``)."""

    lhs: Tile | None  # stride-1 index expression (None: the mask is uniform along the row)
    rhs: Tile | None
    inclusive: bool
    uniform: tuple[Tile, ...]


def _signed_int(t: object) -> bool:
    return isinstance(t, ScalarType) and t.kind is Kind.SINT


def range_form(mask: Tile, axis: int | None = None) -> RangeForm | None:
    """``mask`` as a range along ``axis`` (default: the last), when it is one."""
    axis = len(mask.shape) - 1 if axis is None else axis
    if mask.stride_on(axis) == 0:
        return RangeForm(None, None, False, (mask,))
    if isinstance(mask, ViewTile) and mask.source_axis(axis) is not None:
        return _through_view(mask, axis)
    if not isinstance(mask, MapTile) or not mask.tag:
        return None
    if mask.tag[0] == "and":
        for a, b in (mask.operands, mask.operands[::-1]):
            inner = range_form(a, axis)
            if inner is not None and b.stride_on(axis) == 0:
                return RangeForm(inner.lhs, inner.rhs, inner.inclusive, (*inner.uniform, b))
        return None
    if mask.tag[0] != "cmp" or not _signed_int(mask.operands[0].elem):
        return None
    kind, (x, y) = mask.tag[1], mask.operands
    if kind in ("lt", "le") and x.stride_on(axis) == 1 and y.stride_on(axis) == 0:
        return RangeForm(x, y, kind == "le", ())
    if kind in ("gt", "ge") and y.stride_on(axis) == 1 and x.stride_on(axis) == 0:
        return RangeForm(y, x, kind == "ge", ())
    return None


def _through_view(view: ViewTile, axis: int) -> RangeForm | None:
    """The source's range form, re-read through the view (a broadcast mask, typically)."""
    src_axis = view.source_axis(axis)
    assert src_axis is not None
    inner = range_form(view.src, src_axis)
    if inner is None:
        return None

    def wrap(t: Tile) -> Tile:
        last = t.stride() if view.inner_identity else None
        return ViewTile(view.shape, t, view.index_map, last, view.inner_identity, view.axes)

    lhs = wrap(inner.lhs) if inner.lhs is not None else None
    rhs = wrap(inner.rhs) if inner.rhs is not None else None
    return RangeForm(lhs, rhs, inner.inclusive, tuple(wrap(u) for u in inner.uniform))


def row_limit(s: Scope, form: RangeForm, outer: Index, n: int, axis: int | None = None) -> ir.Value:
    """How many leading elements of the row at ``outer`` (the indices of the other axes) have
    the mask true (i64 in [0, n]); the row runs along ``axis`` (default: the last)."""
    b = s.b
    axis = len(outer) if axis is None else axis
    at = (*outer[:axis], s.zero, *outer[axis:])
    if form.lhs is None or form.rhs is None:
        lim: ir.Value = s.const(n)
    else:
        lhs, rhs = s.get(form.lhs, at), s.get(form.rhs, at)
        lhs = b.sext(lhs, T.i64) if lhs.type.width < 64 else lhs
        rhs = b.sext(rhs, T.i64) if rhs.type.width < 64 else rhs
        lim = b.sub(rhs, lhs)
        if form.inclusive:
            lim = b.add(lim, s.const(1))
        lim = b.select(b.icmp_signed("<", lim, s.zero), s.zero, lim)
        lim = b.select(b.icmp_signed(">", lim, s.const(n)), s.const(n), lim)
    for u in form.uniform:
        lim = b.select(s.get(u, at), lim, s.zero)
    return lim


RowHook = Callable[[Scope, Index], None]

# the loops over a nest's rows are left to the loop vectorizer only when rows are shorter
OUTER_VECTORIZE_BELOW = 8


def emit_nest(
    b: ir.IRBuilder,
    shape: Sequence[int],
    body: Body,
    split: Tile | None = None,
    skip_masked_off: bool = False,
    row_begin: RowHook | None = None,
    row_end: RowHook | None = None,
    masked_partial_rows: bool = False,
    width: int | None = None,
    inner: int | None = None,
) -> None:
    """Emit loops over ``shape`` calling ``body(scope, idx)`` for every element.

    ``row_begin`` / ``row_end`` run before and after each innermost row (reductions use them;
    they get the indices of the other axes); ``width``: the vector lanes asked of the innermost
    loops (None: LLVM's choice); ``inner``: the axis the innermost loop runs (default: the last).
    """
    rank = len(shape)
    inner = rank - 1 if inner is None else inner
    form = range_form(split, inner) if split is not None else None
    outer, n = tuple(d for a, d in enumerate(shape) if a != inner), shape[inner]
    # rows of a vector's length or more vectorize along the row; LLVM would otherwise fully
    # unroll a short row and vectorize the loop over rows instead, with a gather and a scatter
    # per element a row's length apart (8x1024 reduction tiles ran 5x slower so)
    across_rows = n < OUTER_VECTORIZE_BELOW

    def rows(depth: int, idx: Index) -> None:
        if depth < len(outer):
            with counted_loop(
                b,
                ir.Constant(T.i64, 0),
                ir.Constant(T.i64, outer[depth]),
                f"d{depth}",
                vectorize=across_rows,
            ) as i:
                rows(depth + 1, (*idx, i))
            return
        row, line = Scope(b, inner=(rank, inner)), Line(idx, n, inner)
        if row_begin is not None:
            row_begin(row, idx)
        if form is None or split is None:
            with counted_loop(b, row.zero, row.const(n), "e", width=width) as i:
                body(Scope(b, parent=row), line.at(i))
        else:
            _split_row(b, row, form, split, line, body, skip_masked_off, masked_partial_rows, width)
        if row_end is not None:
            row_end(row, idx)

    rows(0, ())


def each_index(b: ir.IRBuilder, shape: Sequence[int], body: Body) -> None:
    """Like emit_nest, and for an empty shape (a scalar) calls ``body`` once with ``()``."""
    if shape:
        emit_nest(b, shape, body)
    else:
        body(Scope(b), ())


@dataclass(frozen=True)
class Line:
    """One innermost loop of a nest: the other axes' indices, its length and its axis."""

    outer: Index
    n: int
    axis: int

    def at(self, i: ir.Value) -> Index:
        return (*self.outer[: self.axis], i, *self.outer[self.axis :])


def _split_row(
    b: ir.IRBuilder,
    row: Scope,
    form: RangeForm,
    split: Tile,
    line: Line,
    body: Body,
    skip_masked_off: bool,
    masked_partial_rows: bool = False,
    width: int | None = None,
) -> None:
    """A full row (mask true everywhere, the common case away from the edges) runs a loop with
    the mask known true and a constant trip count: plain SIMD loads and stores, no remainder.
    Other rows run the in-range prefix with the mask known true and, unless masked-off lanes do
    nothing, the rest with it known false (their loads become ``other``)."""
    n = line.n
    lim = row_limit(row, form, line.outer, n, line.axis)
    fn = b.function
    full, partial, done = (fn.append_basic_block(f"row.{k}") for k in ("full", "part", "done"))
    b.cbranch(b.icmp_unsigned("==", lim, row.const(n)), full, partial)
    b.position_at_end(full)
    with counted_loop(b, row.zero, row.const(n), "all", width=width) as i:
        body(Scope(b, {id(split): True}, parent=row), line.at(i))
    b.branch(done)
    b.position_at_end(partial)
    if masked_partial_rows and not skip_masked_off:
        with counted_loop(b, row.zero, row.const(n), "some", unroll=False, width=width) as i:
            body(Scope(b, parent=row), line.at(i))
        b.branch(done)
        b.position_at_end(done)
        return
    with counted_loop(b, row.zero, lim, "on", width=width) as i:
        body(Scope(b, {id(split): True}, parent=row), line.at(i))
    if not skip_masked_off:
        # masked-off lanes mostly compute constants: LLVM 22's vectorizer can assert on such
        # loops (its two cost models disagree), and there is nothing to gain from SIMD here
        with counted_loop(b, lim, row.const(n), "off", unroll=False, vectorize=False) as i:
            body(Scope(b, {id(split): False}, parent=row), line.at(i))
    b.branch(done)
    b.position_at_end(done)
