"""IR containers: Value, Op, Block and Region.

Values are SSA and identity-hashed. An Op owns its result Values and its Regions; a Region holds
Blocks (in practice one), a Block holds arguments and a list of Ops. Use lists are not stored:
passes that need them compute them with :func:`uses`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from ..source import UNKNOWN_LOC, SourceLoc
from .types import Type


class Value:
    """An SSA value: the result of an Op or an argument of a Block."""

    __slots__ = ("index", "name_hint", "owner", "type")

    def __init__(self, type: Type, owner: Op | Block | None, index: int, name_hint: str = ""):
        self.type = type
        self.owner = owner
        self.index = index
        self.name_hint = name_hint

    @property
    def defining_op(self) -> Op | None:
        return self.owner if isinstance(self.owner, Op) else None

    def __repr__(self) -> str:
        return f"<Value {self.name_hint or id(self):#x}: {self.type}>"


class Block:
    """A list of Ops with typed arguments (loop induction variables, region inputs)."""

    __slots__ = ("args", "ops", "parent")

    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[str] = ()):
        names = list(arg_names) + [""] * (len(arg_types) - len(arg_names))
        self.args: list[Value] = [
            Value(t, self, i, n) for i, (t, n) in enumerate(zip(arg_types, names))
        ]
        self.ops: list[Op] = []
        self.parent: Region | None = None

    def append(self, op: Op) -> Op:
        op.parent = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.parent = self
        self.ops.insert(index, op)
        return op

    def add_arg(self, t: Type, name: str = "") -> Value:
        v = Value(t, self, len(self.args), name)
        self.args.append(v)
        return v

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops and self.ops[-1].is_terminator else None


class Region:
    """A list of Blocks owned by an Op (the body of a loop, a branch of an if)."""

    __slots__ = ("blocks", "parent")

    def __init__(self, blocks: Sequence[Block] = ()):
        self.blocks: list[Block] = []
        self.parent: Op | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block:
        return self.blocks[0]


class Op:
    """Base class of every operation.

    Subclasses set ``name`` (printed mnemonic), take typed attributes in ``__init__``, compute
    their result types, and override ``verify`` to check operand types and shapes.
    """

    name: ClassVar[str] = "op"
    is_terminator: ClassVar[bool] = False
    has_side_effects: ClassVar[bool] = False  # kept by DCE even when unused

    def __init__(
        self,
        operands: Sequence[Value],
        result_types: Sequence[Type],
        loc: SourceLoc | None = None,
        regions: Sequence[Region] = (),
    ) -> None:
        self.operands: list[Value] = list(operands)
        self.results: list[Value] = [Value(t, self, i) for i, t in enumerate(result_types)]
        self.regions: list[Region] = []
        for r in regions:
            r.parent = self
            self.regions.append(r)
        self.loc: SourceLoc = loc or UNKNOWN_LOC
        self.parent: Block | None = None

    @property
    def result(self) -> Value:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    def attributes(self) -> dict[str, Any]:
        """Printable attributes (everything that is not an operand, result or region)."""
        return {}

    def verify(self) -> None:
        """Raise VerificationError when operand/result types break this op's rules."""

    def walk(self) -> Iterator[Op]:
        """This op and every op nested in its regions, pre-order."""
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in list(block.ops):
                    yield from op.walk()

    def erase(self) -> None:
        assert self.parent is not None
        self.parent.ops.remove(self)
        self.parent = None

    def __repr__(self) -> str:
        return f"<{self.name} at {self.loc}>"


def uses(root: Op) -> dict[Value, list[Op]]:
    """Map each Value used under ``root`` to the ops that use it."""
    table: dict[Value, list[Op]] = {}
    for op in root.walk():
        for v in op.operands:
            table.setdefault(v, []).append(op)
    return table


def replace_all_uses(root: Op, old: Value, new: Value) -> None:
    """Replace every use of ``old`` under ``root`` by ``new``."""
    for op in root.walk():
        op.operands = [new if v is old else v for v in op.operands]
