"""Where each tile IR value is defined and last used, in one pre-order numbering of the kernel.

The lowering keeps loads lazy (fused into their consumers' loops); a lazy load must be read
before any store or atomic that could change its memory, so it needs these positions. A use
inside a loop that does not define the value counts as a use at the loop's end: the loop body
may run again after its own stores.
"""

from __future__ import annotations

from ...ir import ops as O
from ...ir.core import Block, Op, Value
from ...ir.ops import ForOp, WhileOp

# ops whose tile result element i depends only on element i of their operands: a value used
# only through them is evaluated in the same loop body as its consumers
_SAME_INDEX = (
    O.BinaryOp,
    O.CompareOp,
    O.SelectOp,
    O.CastOp,
    O.BitcastOp,
    O.MathOp,
    O.AddPtrOp,
    O.HintOp,
    O.LoadOp,
)


class Liveness:
    def __init__(self, root: Op):
        self.order: dict[Op, int] = {}
        self.end: dict[Op, int] = {}
        self.last_use: dict[Value, int] = {}
        self.users: dict[Value, set[Op]] = {}
        self._roots: dict[Value, set[Op]] = {}
        self._number(root)
        for op in self.order:
            for v in op.operands:
                self.users.setdefault(v, set()).add(op)
                pos = self._effective_position(op, v)
                if pos > self.last_use.get(v, -1):
                    self.last_use[v] = pos

    def _number(self, root: Op) -> None:
        counter = 0
        stack: list[tuple[Op, bool]] = [(root, False)]
        while stack:
            op, done = stack.pop()
            if done:
                self.end[op] = counter - 1
                continue
            self.order[op] = counter
            counter += 1
            stack.append((op, True))
            for region in reversed(op.regions):
                for block in reversed(region.blocks):
                    for inner in reversed(block.ops):
                        stack.append((inner, False))

    def def_position(self, v: Value) -> int:
        owner = v.owner
        if isinstance(owner, Op):
            return self.order[owner]
        if (
            isinstance(owner, Block)
            and owner.parent is not None
            and owner.parent.parent is not None
        ):
            return self.order[owner.parent.parent]
        return -1

    def _contains(self, op: Op, pos: int) -> bool:
        return self.order[op] <= pos <= self.end[op]

    def _effective_position(self, user: Op, v: Value) -> int:
        pos = self.order[user]
        d = self.def_position(v)
        ancestor = _parent_op(user)
        while ancestor is not None:
            if isinstance(ancestor, (ForOp, WhileOp)) and not self._contains(ancestor, d):
                pos = max(pos, self.end[ancestor])
            ancestor = _parent_op(ancestor)
        return pos

    def fusion_roots(self, v: Value) -> set[Op]:
        """The ops where ``v``'s elements are finally consumed, following same-index ops."""
        memo = self._roots
        if v in memo:
            return memo[v]
        memo[v] = set()  # cycles cannot occur in SSA; this guards re-entry only
        roots: set[Op] = set()
        for u in self.users.get(v, ()):
            if (
                isinstance(u, _SAME_INDEX)
                and len(u.results) == 1
                and _parent_op(u) is self._scope(v)
            ):
                roots |= self.fusion_roots(u.results[0])
            else:
                roots.add(u)
        memo[v] = roots
        return roots

    def _scope(self, v: Value) -> Op | None:
        owner = v.owner
        if isinstance(owner, Op):
            return _parent_op(owner)
        if isinstance(owner, Block) and owner.parent is not None:
            return owner.parent.parent
        return None

    def n_users(self, v: Value) -> int:
        return len(self.users.get(v, ()))

    def live_across(self, v: Value, pos: int) -> bool:
        """True when ``v`` is defined before ``pos`` and used after it."""
        return self.def_position(v) < pos < self.last_use.get(v, -1)

    def used_inside(self, v: Value, op: Op) -> bool:
        return any(self._contains(op, self.order[u]) and u is not op for u in self.users.get(v, ()))


def _parent_op(op: Op) -> Op | None:
    block = op.parent
    if block is None or block.parent is None:
        return None
    return block.parent.parent
