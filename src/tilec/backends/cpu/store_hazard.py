"""Whether a store could overwrite memory that a load still pending in its own operands reads.

The CPU backend keeps tile values lazy and evaluates a store's value element by element inside
the store's loop, so a load feeding the value runs after the stores of earlier elements. Triton's
tile semantics are that every load of the value happens before the store writes anything:
``z += tl.load(Z + rows * N)[:, None]; tl.store(Z + rows[:, None] * N + cols, z)`` must read
column 0 before the store overwrites it. Where a pending load may read what the store writes at
another element, the store computes its value (and mask) whole first.

A load is harmless when its pointer tile is the store's own (each element reads the address it
then writes) or derives from another kernel argument: arguments whose memory partially overlaps
are outside what a kernel may assume, as on a GPU, where programs race over such memory.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...ir import ops as O
from ...ir.core import Value
from .tiles import BufferTile, Tile

# ops through which a pointer tile keeps the argument it derives from
_POINTER_PATH = (O.AddPtrOp, O.SplatOp, O.BroadcastOp, O.ExpandDimsOp, O.ReshapeOp, O.TransOp)


def _root(v: Value, args: frozenset[Value]) -> Value | None:
    """The kernel argument ``v`` points into, or None when that is not known here (a pointer
    carried by a loop, loaded from memory, selected, or made from an integer)."""
    while True:
        op = v.defining_op
        if op is None:
            return v if v in args else None
        if not isinstance(op, _POINTER_PATH):
            return None
        v = op.operands[0]


def _pending_loads(env: Mapping[Value, object], values: list[Value]) -> list[O.LoadOp]:
    """Loads whose lazy results feed ``values`` (materialized or scalar results are done)."""
    found: list[O.LoadOp] = []
    seen: set[int] = set()
    stack = list(values)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        x = env.get(v)
        if not isinstance(x, Tile) or isinstance(x, BufferTile):
            continue
        op = v.defining_op
        if op is None:
            continue
        if isinstance(op, O.LoadOp):
            found.append(op)
        stack.extend(op.operands)
    return found


def overwrites_pending_load(
    env: Mapping[Value, object], args: frozenset[Value], ptr: Value, operands: Sequence[Value]
) -> bool:
    """Whether storing through ``ptr`` may change what a pending load in ``operands`` (the
    value, the mask, the pointer tile itself) reads for a later element."""
    root = _root(ptr, args)
    for load in _pending_loads(env, list(operands)):
        if load.ptr is ptr:
            continue
        other = _root(load.ptr, args)
        if root is None or other is None or other is root:
            return True
    return False
