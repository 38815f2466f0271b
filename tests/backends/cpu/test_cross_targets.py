"""Objects for other operating systems and CPUs: codegen assumes nothing about the host."""

from __future__ import annotations

import struct

import pytest

from tilec.backends import registry
from tilec.backends.target import CompileOptions, Target
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg

from .support import kernel


def _softmax_like(b, x, out, n) -> None:
    offs = b.make_range(0, 128)
    mask = b.compare(O.CompareKind.LT, offs, b.splat(n, (128,)))
    ninf = b.constant(float("-inf"), T.TileType((128,), T.float32))
    v = b.load(b.addptr(b.splat(x, (128,)), offs), mask, ninf)
    red = b.reduce([v], 0)
    with b.at_end_of(red.combine):
        b.yield_([b.binary(O.BinaryKind.MAX, *red.combine.args)])
    e = b.math("exp", b.binary(O.BinaryKind.SUB, v, b.splat(red.result, (128,))))
    s = b.math("lgamma", e)  # a libm call: resolved at load time, declared in the object
    b.print_("x: ", [b.program_id(0)])
    b.store(b.addptr(b.splat(out, (128,)), offs), s, mask)


def _module():
    specs = [pointer_arg("x", T.float32), pointer_arg("out", T.float32), scalar_arg("n", T.int32)]
    return kernel(specs, _softmax_like)


@pytest.mark.parametrize(
    ("triple", "cpu", "check"),
    [
        ("x86_64-pc-windows-msvc", "x86-64-v3", lambda o: struct.unpack_from("<H", o)[0] == 0x8664),
        (
            "arm64-apple-macosx",
            "apple-m1",
            lambda o: (
                o[:4] == b"\xcf\xfa\xed\xfe" and struct.unpack_from("<I", o, 4)[0] == 0x0100000C
            ),
        ),
        (
            "aarch64-unknown-linux-gnu",
            "generic",
            lambda o: o[:4] == b"\x7fELF" and struct.unpack_from("<H", o, 18)[0] == 183,
        ),
        (
            "x86_64-unknown-linux-gnu",
            "x86-64",
            lambda o: o[:4] == b"\x7fELF" and struct.unpack_from("<H", o, 18)[0] == 62,
        ),
    ],
)
def test_object_for_other_triples(triple: str, cpu: str, check) -> None:
    compiler = registry.get("cpu").compiler
    compiled = compiler.compile(_module(), Target("cpu", cpu, "", triple), CompileOptions())
    obj = compiled.asm["obj"]
    assert isinstance(obj, bytes) and check(obj), obj[:32]
    assert compiled.metadata.symbol.encode() in obj
    assert "lgammaf" in compiled.asm["llir"] and "printf" in compiled.asm["llir"]


def test_vector_math_is_inline_for_neon() -> None:
    compiler = registry.get("cpu").compiler
    compiled = compiler.compile(
        _module(), Target("cpu", "generic", "+neon", "aarch64-unknown-linux-gnu"), CompileOptions()
    )
    llir = compiled.asm["llir"]
    assert "@expf" not in llir and "<4 x float>" in llir
