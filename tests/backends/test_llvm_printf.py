"""llvm/printf.py: device_print's line formats (Triton's) and C's default argument promotion,
shared by the backends."""

from __future__ import annotations

import pytest
from llvmlite import ir

from tilec.backends.llvm import printf as P
from tilec.backends.llvm.types import bfloat, f16, f32, f64, i1, i8, i16, i64, ptr
from tilec.ir import types as T


def test_lines() -> None:
    assert P.line(": ", None) == "pid (%u, %u, %u): \n"
    assert P.line(" x: ", (), "%f") == "pid (%u, %u, %u) idx () x: %f\n"
    assert P.line(": ", (128,), "%d", 1) == "pid (%u, %u, %u) idx (%3u): (operand 1) %d\n"
    assert P.line("", (1, 16, 1000), "%u") == "pid (%u, %u, %u) idx (%u, %2u, %3u)%u\n"


def _promoted(ty: ir.Type, how: P.Promote, pointer: ir.PointerType = ptr) -> str:
    module = ir.Module(name="m")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ty]), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    return str(P.promote(b, fn.args[0], how, pointer).type)


@pytest.mark.parametrize(
    ("ty", "how", "want"),
    [
        (f16, P.Promote.DOUBLE, "double"),
        (f64, P.Promote.DOUBLE, "double"),
        (i8, P.Promote.SIGNED, "i32"),
        (i1, P.Promote.UNSIGNED, "i32"),
        (i64, P.Promote.SIGNED, "i64"),
        (bfloat, P.Promote.BITS, "i32"),
        (f32, P.Promote.BITS, "i32"),
        (f64, P.Promote.BITS, "i64"),
        (i16, P.Promote.UNSIGNED, "i32"),
    ],
)
def test_promotion(ty: ir.Type, how: P.Promote, want: str) -> None:
    assert _promoted(ty, how) == want


def test_pointers_are_cast_to_the_pointer_printf_takes() -> None:
    assert _promoted(ir.PointerType(addrspace=1), P.Promote.POINTER) == "ptr"
    assert _promoted(ptr, P.Promote.POINTER, ir.PointerType(addrspace=4)) == "ptr addrspace(4)"


def test_signed_and_unsigned_extension() -> None:
    module = ir.Module(name="m")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i8, i8]), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    P.promote(b, fn.args[0], P.Promote.SIGNED, ptr)
    P.promote(b, fn.args[1], P.Promote.UNSIGNED, ptr)
    text = str(fn)
    assert "sext i8" in text and "zext i8" in text


@pytest.mark.parametrize(
    ("dtype", "hex_", "text", "how"),
    [
        (T.int8, True, "0x%02x", P.Promote.SIGNED),  # -1 prints 0xffffffff, as C promotes it
        (T.uint16, True, "0x%04x", P.Promote.UNSIGNED),
        (T.int64, True, "0x%016llx", P.Promote.SIGNED),
        (T.float16, True, "0x%04x", P.Promote.BITS),
        (T.float32, True, "0x%08x", P.Promote.BITS),
        (T.float64, True, "0x%016llx", P.Promote.BITS),
        (T.float32, False, "%f", P.Promote.DOUBLE),
        (T.int32, False, "%i", P.Promote.SIGNED),
        (T.uint64, False, "%llu", P.Promote.UNSIGNED),
        (T.int1, False, "%u", P.Promote.UNSIGNED),
        (T.PointerType(T.float32), True, "%p", P.Promote.POINTER),
    ],
)
def test_conversions_are_tritons(dtype, hex_: bool, text: str, how: P.Promote) -> None:
    # one table for every backend: CUDA printed hex as 0x%x of the value and floats as %a
    assert P.conversion(dtype, hex_) == P.Conversion(text, how)
