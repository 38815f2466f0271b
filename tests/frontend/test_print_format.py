"""What device_print and static_print show, as Triton shows it: a device_print prefix ends in
': ' before values and a longer one starts with a space; static_print shows a tensor as its
element type and compile-time shape."""

from __future__ import annotations

import pytest

import tilec.language as tl
from support.build import build
from tilec.frontend.builtins_debug import print_prefix
from tilec.ir import ops as O


@pytest.mark.parametrize(
    ("given", "has_values", "printed"),
    [
        ("x: ", True, " x: "),
        ("x:", True, " x: "),
        ("x ", True, " x: "),
        ("x", True, " x: "),
        ("", True, ": "),
        ("no arg", False, " no arg"),
        (" v: ", True, " v: "),
    ],
)
def test_prefix(given, has_values, printed):
    assert print_prefix(given, has_values) == printed


def k_prints(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x ", x)
    print("y:", x)
    print("", tl.program_id(0))


def test_print_ops_carry_the_prefix():
    module = build(k_prints, "*i32", 8)
    prefixes = [op.prefix for op in module.walk() if isinstance(op, O.PrintOp)]
    assert prefixes == [" x: ", " y: ", ": "]


def k_static(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.static_print("", x, tl.sum(x, 0), BLOCK)


def test_static_print_of_tensors(capsys):
    build(k_static, "*i32", 128)
    assert capsys.readouterr().out == " int32[constexpr[128]] int32[] 128\n"
