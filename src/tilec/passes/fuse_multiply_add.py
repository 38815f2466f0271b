"""Floating-point contraction (``enable_fp_fusion``, Triton's default): ``a * b + c`` becomes
one fused multiply-add, rounded once.

Triton leaves this to LLVM's contraction of ``fmul`` and ``fadd``, which picks its pairs per
target. Here the pairs are picked once, in the tile IR, so every backend computes the same
bits: an fp32 or fp64 product whose only use is one addition or subtraction in the same block
(``a*b + c``, ``c + a*b``, ``a*b - c`` as ``fma(a, b, -c)``, ``c - a*b`` as ``fma(-a, b, c)``);
negation is exact, and fma is correctly rounded on every backend. 16-bit floats are left
alone: a backend that computes them in fp32 would round twice where a native fp16 fma rounds
once. With ``enable_fp_fusion=False`` each operation is rounded on its own.
"""

from __future__ import annotations

from ..ir.core import Block, Op, Value, replace_all_uses, uses
from ..ir.ops import BinaryKind, BinaryOp, MathOp, ModuleOp
from ..ir.types import ScalarType, element_of

_WIDTHS = (32, 64)


def run(module: ModuleOp) -> None:
    table = uses(module)
    blocks = {op.parent for op in module.walk() if op.parent is not None}
    for block in blocks:
        for op in list(block.ops):
            if isinstance(op, BinaryOp) and op.kind in (BinaryKind.ADD, BinaryKind.SUB):
                _fuse(block, op, table)


def _float(v: Value) -> bool:
    elem = element_of(v.type)
    return isinstance(elem, ScalarType) and elem.is_floating() and elem.bits in _WIDTHS


def _product(v: Value, user: Op, table: dict[Value, list[Op]]) -> BinaryOp | None:
    """The multiplication defining ``v``, when ``user`` in its block is its only use."""
    mul = v.defining_op
    if not isinstance(mul, BinaryOp) or mul.kind is not BinaryKind.MUL or mul.fast:
        return None
    if mul.parent is not user.parent or table.get(v, []) != [user]:
        return None
    return mul


def _fuse(block: Block, op: BinaryOp, table: dict[Value, list[Op]]) -> None:
    if op.fast or not _float(op.result) or op.operands[0].type != op.operands[1].type:
        return
    for side in (0, 1):
        mul = _product(op.operands[side], op, table)
        if mul is None or mul.operands[0].type != op.result.type:
            continue
        a, b = mul.operands
        c = op.operands[1 - side]
        at = block.ops.index(op)
        if op.kind is BinaryKind.SUB and side == 0:  # a*b - c
            c = block.insert(at, MathOp("neg", [c], op.loc)).result
            at += 1
        elif op.kind is BinaryKind.SUB:  # c - a*b
            a = block.insert(at, MathOp("neg", [a], op.loc)).result
            at += 1
        fma = block.insert(at, MathOp("fma", [a, b, c], op.loc))
        owner = block.parent.parent if block.parent is not None else None
        assert owner is not None  # the op whose region holds the block: every use is in it
        replace_all_uses(owner, op.result, fma.result)
        op.erase()
        mul.erase()
        return
