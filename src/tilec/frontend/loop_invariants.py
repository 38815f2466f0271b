"""Drop loop-carried values that a loop body passes through unchanged.

The frontend carries every name a loop body assigns, and whole structs (a block pointer's base,
shape and strides as well as its offsets). Those the body yields unchanged are loop-invariant:
rebuilding the loop without them lets backends keep them in registers instead of loop state.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.core import Block, Op, Value
from ..ir.ops import ConditionOp, ForOp, WhileOp


def _changing(args: Sequence[Value], yielded: Sequence[Value]) -> list[int]:
    return [i for i, (a, y) in enumerate(zip(args, yielded)) if y is not a]


def _move(src: Block, dst: Block, mapping: dict[Value, Value]) -> None:
    for op in list(src.ops):
        dst.append(op)
    for op in dst.ops:
        for inner in op.walk():
            inner.operands = [mapping.get(v, v) for v in inner.operands]


def _swap(old: Op, new: Op) -> None:
    block = old.parent
    assert block is not None
    block.ops[block.ops.index(old)] = new
    new.parent = block


def _results(keep: list[int], new: Op, init: Sequence[Value]) -> list[Value]:
    slot = {i: j for j, i in enumerate(keep)}
    return [new.results[slot[i]] if i in slot else v for i, v in enumerate(init)]


def prune_for(loop: ForOp) -> list[Value]:
    """Rebuild ``loop`` without invariant iter_args; the value of each original result."""
    init, args = list(loop.init_args), loop.body.args[1:]
    term = loop.body.terminator
    assert term is not None
    keep = _changing(args, term.operands)
    if len(keep) == len(args):
        return list(loop.results)
    lb, ub, step = loop.operands[:3]
    new = ForOp(
        lb,
        ub,
        step,
        [init[i] for i in keep],
        loop.loc,
        num_stages=loop.num_stages,
        loop_unroll_factor=loop.loop_unroll_factor,
        flatten=loop.flatten,
        warp_specialize=loop.warp_specialize,
    )
    mapping = {loop.body.args[0]: new.body.args[0]}
    mapping.update({args[i]: new.body.args[1 + j] for j, i in enumerate(keep)})
    mapping.update({a: init[i] for i, a in enumerate(args) if i not in keep})
    _move(loop.body, new.body, mapping)
    term.operands = [term.operands[i] for i in keep]
    _swap(loop, new)
    return _results(keep, new, init)


def prune_while(loop: WhileOp) -> list[Value]:
    """Rebuild ``loop`` without values its body yields unchanged; each original result's value."""
    init = list(loop.operands)
    term = loop.after.terminator
    cond = loop.before.terminator
    assert term is not None and isinstance(cond, ConditionOp)
    keep = _changing(loop.after.args, term.operands)
    if len(keep) == len(init) or list(cond.operands[1:]) != list(loop.before.args):
        return list(loop.results)
    new = WhileOp([init[i] for i in keep], loop.loc)
    for old_block, new_block in ((loop.before, new.before), (loop.after, new.after)):
        mapping = {old_block.args[i]: new_block.args[j] for j, i in enumerate(keep)}
        mapping.update({a: init[i] for i, a in enumerate(old_block.args) if i not in keep})
        _move(old_block, new_block, mapping)
    cond.operands = [cond.operands[0], *(cond.operands[1 + i] for i in keep)]
    term.operands = [term.operands[i] for i in keep]
    _swap(loop, new)
    return _results(keep, new, init)
