"""llvm/intrinsics.py: one declarer of LLVM intrinsics for both backends, overload suffixes by
LLVM's spelling (bf16 included), each function declared once per module."""

from __future__ import annotations

from llvmlite import ir

from tilec.backends.llvm import intrinsics as I
from tilec.backends.llvm.types import bfloat, f32, i1, i32


def _builder() -> ir.IRBuilder:
    module = ir.Module(name="m")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "f")
    return ir.IRBuilder(fn.append_basic_block())


def test_overload_suffix_of_each_type() -> None:
    b = _builder()
    x = ir.Constant(bfloat, 1.0)
    I.call(b, "fabs", [x])
    I.call(b, "fma", [ir.Constant(f32, 1.0)] * 3)
    I.call(b, "ctlz", [ir.Constant(i32, 1), ir.Constant(i1, 0)])
    names = {f.name for f in b.module.functions}
    assert {"llvm.fabs.bf16", "llvm.fma.f32", "llvm.ctlz.i32"} <= names


def test_a_result_type_other_than_the_operand() -> None:
    b = _builder()
    r = I.call(b, "ctlz", [ir.Constant(i32, 1), ir.Constant(i1, 0)], ret=i32)
    assert r.type == i32
    fn = b.module.get_global("llvm.ctlz.i32")
    assert [str(a) for a in fn.function_type.args] == ["i32", "i1"]


def test_declared_once_per_module() -> None:
    b = _builder()
    for _ in range(3):
        I.call_same(b, "minnum", ir.Constant(f32, 1.0), ir.Constant(f32, 2.0))
    assert [f.name for f in b.module.functions].count("llvm.minnum.f32") == 1
    assert I.declare(b.module, "llvm.minnum.f32", f32, [f32, f32]) is b.module.get_global(
        "llvm.minnum.f32"
    )
