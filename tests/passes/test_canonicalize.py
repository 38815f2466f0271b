"""Canonicalization: identities, no-op shape ops, constant-condition ifs, empty loops."""

from __future__ import annotations

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.verify import verify
from tilec.passes import canonicalize, dce
from tilec.passes.pipeline import optimize


def test_identities(kernel) -> None:
    b = kernel.b
    x = b.binary(O.BinaryKind.ADD, kernel.n, b.constant(0, T.int32))
    y = b.binary(O.BinaryKind.MUL, b.constant(1, T.int32), x)
    z = b.cast(y, T.int32)
    kernel.store(z)
    m = kernel.finish()
    canonicalize.run(m)
    dce.run(m)
    verify(m)
    store = next(op for op in kernel.func.body.ops if isinstance(op, O.StoreOp))
    assert store.value is kernel.n


def test_float_add_zero_is_kept(kernel) -> None:
    """x + 0.0 is not an identity for x = -0.0, so it must stay."""
    b = kernel.b
    f = b.cast(kernel.n, T.float32)
    g = b.binary(O.BinaryKind.ADD, f, b.constant(0.0, T.float32))
    kernel.store(b.cast(g, T.int32))
    m = kernel.finish()
    canonicalize.run(m)
    assert any(isinstance(op, O.BinaryOp) for op in kernel.func.body.ops)


def test_broadcast_of_splat_becomes_splat(kernel) -> None:
    b = kernel.b
    s = b.splat(kernel.n, (1, 16))
    t = b.broadcast(s, (8, 16))
    r = b.reshape(t, (128,))
    kernel.store(r)
    m = kernel.finish()
    optimize(m, debug=True)
    names = kernel.ops()
    assert "broadcast" not in names and "reshape" not in names


def test_if_on_constant_condition_is_inlined(kernel) -> None:
    b = kernel.b
    cond = b.constant(True, T.int1)
    iff = b.if_(cond, [T.int32])
    with b.at_end_of(iff.then_block):
        b.yield_([b.binary(O.BinaryKind.ADD, kernel.n, kernel.n)])
    with b.at_end_of(iff.else_block):
        b.yield_([kernel.n])
    kernel.store(iff.result)
    m = kernel.finish()
    optimize(m, debug=True)
    assert "if" not in kernel.ops()
    store = next(op for op in kernel.func.body.ops if isinstance(op, O.StoreOp))
    assert isinstance(store.value.defining_op, O.BinaryOp)


def test_loop_that_never_runs_is_removed(kernel) -> None:
    b = kernel.b
    loop = b.for_(
        b.constant(5, T.int32), b.constant(5, T.int32), b.constant(1, T.int32), [kernel.n]
    )
    with b.at_end_of(loop.body):
        b.store(kernel.out, loop.body.args[1])
        b.yield_([loop.body.args[1]])
    kernel.store(loop.result)
    m = kernel.finish()
    optimize(m, debug=True)
    assert "for" not in kernel.ops()
