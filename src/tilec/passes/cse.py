"""Common subexpression elimination over pure, region-free ops.

Two ops are the same when they have the same class, attributes, operands and result types. A
value computed in an enclosing block is visible (and reused) inside nested regions, never the
other way round. One pass in program order: uses always follow definitions.
"""

from __future__ import annotations

from typing import Any

from ..ir.core import Block, Op, Value
from ..ir.ops import AssumeOp, HintOp, LoadOp, ModuleOp

_Key = tuple[Any, ...]


def _hashable(v: Any) -> Any:
    if isinstance(v, float) and v != v:  # NaN constants are equal to each other here
        return ("nan",)
    if isinstance(v, float):  # by bits: 0.0 == -0.0, yet -0.0 must not become 0.0
        return ("float", v.hex())
    return (type(v).__name__, v if not isinstance(v, (list, dict)) else repr(v))


def _key(op: Op) -> _Key | None:
    if op.regions or op.has_side_effects or op.is_terminator or not op.results:
        return None
    if isinstance(op, (LoadOp, HintOp, AssumeOp)):  # loads may observe stores in between
        return None
    attrs = tuple(sorted((k, _hashable(v)) for k, v in op.attributes().items()))
    return (type(op), attrs, tuple(map(id, op.operands)), tuple(r.type for r in op.results))


def _visit(block: Block, seen: dict[_Key, list[Value]], subst: dict[Value, Value]) -> None:
    scope = dict(seen)
    for op in list(block.ops):
        op.operands = [subst.get(v, v) for v in op.operands]
        for region in op.regions:
            for inner in region.blocks:
                _visit(inner, scope, subst)
        key = _key(op)
        if key is None:
            continue
        prior = scope.get(key)
        if prior is None:
            scope[key] = list(op.results)
            continue
        subst.update(zip(op.results, prior))
        op.erase()


def run(module: ModuleOp) -> None:
    _visit(module.body, {}, {})
