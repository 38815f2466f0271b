"""How a loop lays out the tiles it carries, and when a carried tile is updated in place.

A tile carried around a loop lives in a buffer that the body reads and its yield rewrites. When
the yielded tile's nest runs another axis than the last innermost (inner_axis.py: Inductor's
``[XBLOCK, RBLOCK]`` accumulators of column sums), the buffer is laid out with that axis
innermost, so its reads and writes stay consecutive too. A trial lowering of the body into a
scratch function (thrown away, as rules/dot_loop.py probes operands) shows the yielded tile;
only bodies of pure ops are probed, which allocate nothing and have no effects.
"""

from __future__ import annotations

from collections.abc import Mapping

from llvmlite import ir

from ....errors import TilecError
from ....ir import ops as O
from ....ir.types import TileType
from ...llvm import types as T
from ..inner_axis import inner_axis
from ..load_tile import LoadTile
from ..lower import Lowered, Lowering
from ..tiles import BufferTile, MapTile, Tile, reads_buffer, storage

_PURE = (
    O.BinaryOp,
    O.CompareOp,
    O.SelectOp,
    O.CastOp,
    O.BitcastOp,
    O.MathOp,
    O.ConstantOp,
    O.ProgramIdOp,
    O.NumProgramsOp,
    O.MakeRangeOp,
    O.AddPtrOp,
    O.LoadOp,
    O.SplatOp,
    O.BroadcastOp,
    O.ExpandDimsOp,
    O.ReshapeOp,
    O.TransOp,
    O.HintOp,
)

_NULL = ir.Constant(T.ptr, None)


def carried_inner_axes(
    lw: Lowering, op: O.ForOp, plain: list[int], given: Mapping[int, Lowered]
) -> dict[int, int]:
    """For the carried tiles (positions ``plain`` among the iter args) whose yielded value a
    nest runs along another axis than the last: that axis. ``given`` binds the other iter args
    (their values in the body) for the trial lowering."""
    body, term = op.body, op.body.terminator
    tiles = [
        i for i in plain if isinstance(t := op.results[i].type, TileType) and len(t.shape) >= 2
    ]
    if not tiles or term is None:
        return {}
    if any(not isinstance(o, _PURE) or getattr(o, "volatile", False) for o in body.ops[:-1]):
        return {}
    found: dict[int, int] = {}
    with lw.trial(op):
        try:
            for i, arg in enumerate(body.args[1:]):
                t = arg.type
                if i in given:
                    lw.env[arg] = given[i]
                elif isinstance(t, TileType):
                    lw.env[arg] = BufferTile(t.shape, t.element, _NULL)
                else:
                    lw.env[arg] = ir.Constant(storage(t), None)  # type: ignore[arg-type]
            for inner in body.ops[:-1]:
                lw.lower_op(inner)
        except TilecError:
            return {}
        for i in tiles:
            y = lw.env.get(term.operands[i])
            if isinstance(y, Tile) and not isinstance(y, BufferTile):
                axis = inner_axis(y.shape, [y])
                if axis != len(y.shape) - 1:
                    found[i] = axis
    return found


def in_place(tile: Tile, slot: BufferTile, others: list[Tile], slots: set[int]) -> bool:
    """Whether ``tile`` can be written into ``slot`` element by element without a staging copy:
    it reads no carried buffer but ``slot``, and that only at the element being written
    (through elementwise ops and loads), and no other yielded tile (``others``) reads ``slot``."""
    if any(reads_buffer(o, {id(slot.addr)}) for o in others):
        return False
    stack, seen = [tile], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if isinstance(t, BufferTile):
            if id(t.addr) in slots and t is not slot:
                return False
        elif isinstance(t, (MapTile, LoadTile)):
            stack.extend(t.children())
        elif reads_buffer(t, slots):
            return False
    return True
