"""CSE merges identical pure ops (respecting scopes); DCE drops unused pure ops."""

from __future__ import annotations

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.verify import verify
from tilec.passes import cse, dce


def test_cse_merges_identical_ops(kernel) -> None:
    b = kernel.b
    a1 = b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)
    a2 = b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)
    kernel.store(b.binary(O.BinaryKind.MUL, a1, a2))
    m = kernel.finish()
    cse.run(m)
    verify(m)
    adds = [
        op
        for op in kernel.func.body.ops
        if isinstance(op, O.BinaryOp) and op.kind is O.BinaryKind.ADD
    ]
    assert len(adds) == 1
    mul = next(
        op
        for op in kernel.func.body.ops
        if isinstance(op, O.BinaryOp) and op.kind is O.BinaryKind.MUL
    )
    assert mul.operands[0] is mul.operands[1] is adds[0].result


def test_cse_reuses_outer_value_inside_loop_but_not_inverse(kernel) -> None:
    b = kernel.b
    outer = b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)
    loop = b.for_(b.constant(0, T.int32), kernel.n, b.constant(1, T.int32), [outer])
    with b.at_end_of(loop.body):
        inner = b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)
        b.yield_([b.binary(O.BinaryKind.ADD, loop.body.args[1], inner)])
    after = b.binary(O.BinaryKind.MUL, kernel.n, kernel.n)
    kernel.store(b.binary(O.BinaryKind.ADD, loop.result, after))
    m = kernel.finish()
    cse.run(m)
    verify(m)
    body_adds = [op for op in loop.body.ops if isinstance(op, O.BinaryOp)]
    assert len(body_adds) == 1 and body_adds[0].operands[1] is outer


def test_loads_are_not_merged(kernel) -> None:
    b = kernel.b
    v1 = b.load(kernel.out)
    b.store(kernel.out, b.constant(1, T.int32))
    v2 = b.load(kernel.out)
    kernel.store(b.binary(O.BinaryKind.ADD, v1, v2))
    m = kernel.finish()
    cse.run(m)
    assert sum(isinstance(op, O.LoadOp) for op in kernel.func.body.ops) == 2


def test_dce_removes_unused_pure_ops_and_dead_loops(kernel) -> None:
    b = kernel.b
    b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)  # unused
    loop = b.for_(b.constant(0, T.int32), kernel.n, b.constant(1, T.int32), [kernel.n])
    with b.at_end_of(loop.body):
        b.yield_([b.binary(O.BinaryKind.ADD, loop.body.args[1], kernel.n)])
    keep = b.for_(b.constant(0, T.int32), kernel.n, b.constant(1, T.int32))
    with b.at_end_of(keep.body):
        b.store(kernel.out, keep.induction_var)
        b.yield_()
    m = kernel.finish()
    dce.run(m)
    verify(m)
    names = kernel.ops()
    assert names.count("for") == 1 and "binary" not in names
    assert any(isinstance(op, O.StoreOp) for op in keep.body.ops)
