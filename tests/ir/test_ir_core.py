"""Tile IR construction, printing and verification on a hand-built kernel."""

from __future__ import annotations

import pytest

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg
from tilec.ir.builder import Builder
from tilec.ir.printer import print_ir
from tilec.ir.verify import VerificationError, verify


def _vector_add() -> tuple[O.ModuleOp, Builder, O.FuncOp]:
    m = O.ModuleOp()
    specs = [pointer_arg("x", T.float32), pointer_arg("out", T.float32), scalar_arg("n", T.int32)]
    f = O.FuncOp("k", specs)
    m.body.append(f)
    b = Builder(f.body)
    x, out, n = f.args
    offs = b.make_range(0, 128)
    mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (128,)))
    v = b.load(b.addptr(b.splat(x, (128,)), offs), mask)
    b.store(b.addptr(b.splat(out, (128,)), offs), v, mask)
    b.ret()
    return m, b, f


def test_build_print_verify() -> None:
    m, _, _ = _vector_add()
    verify(m)
    text = print_ir(m)
    assert "load" in text and "store" in text and "tile<128xfp32>" in text
    assert "^(%x: *fp32, %out: *fp32, %n: i32):" in text


def test_verifier_rejects_mismatched_types() -> None:
    m, b, f = _vector_add()
    ret = f.body.ops.pop()
    b.set_insertion_point_to_end(f.body)
    a = b.constant(1, T.int32)
    c = b.constant(1.0, T.float32)
    b.binary(O.BinaryKind.ADD, a, c)
    f.body.append(ret)
    with pytest.raises(VerificationError, match="operand types differ"):
        verify(m)


def test_verifier_rejects_use_outside_scope() -> None:
    m, b, f = _vector_add()
    ret = f.body.ops.pop()
    b.set_insertion_point_to_end(f.body)
    zero = b.constant(0, T.int32)
    loop = b.for_(zero, f.args[2], b.constant(1, T.int32))
    with b.at_end_of(loop.body):
        inner = b.constant(2, T.int32)
        b.yield_()
    b.binary(O.BinaryKind.ADD, inner, zero)
    f.body.append(ret)
    with pytest.raises(VerificationError, match="outside its scope"):
        verify(m)


def test_tile_types() -> None:
    t = T.TileType((16, 32), T.float16)
    assert str(t) == "tile<16x32xfp16>" and t.numel == 512 and t.rank == 2
    assert T.with_shape(T.float32, ()) is T.float32
    assert str(T.pointer(T.bfloat16)) == "*bf16"
    with pytest.raises(ValueError):
        T.TileType((), T.float32)
