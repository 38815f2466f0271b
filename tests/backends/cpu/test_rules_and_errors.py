"""Every tile IR op has a CPU lowering rule; what cannot be lowered is a clean TilecError."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.backends.cpu.rules import RULES
from tilec.errors import LoweringError, TilecError, UnsupportedFeature
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg
from tilec.ir.core import Op

from .support import Kernel, kernel

CONTAINERS = {O.FuncOp, O.ModuleOp}  # lowered by the compiler itself, not by a rule


def test_every_op_has_a_rule() -> None:
    found = [getattr(O, name) for name in O.__all__]
    ops = {c for c in found if isinstance(c, type) and issubclass(c, Op)} - CONTAINERS
    missing = sorted(c.__name__ for c in ops if c not in RULES)
    assert not missing


def test_missing_rule_names_op_and_location() -> None:
    class Mystery(Op):
        name = "mystery"

    def body(b, x) -> None:
        b.insert(Mystery([], []))

    with pytest.raises(
        UnsupportedFeature, match=r"the CPU backend cannot lower 'mystery' \(Mystery\)"
    ):
        Kernel(kernel([pointer_arg("x", T.float32)], body))


def test_unsupported_math_is_a_tilec_error() -> None:
    def body(b, x) -> None:
        v = b.load(b.addptr(b.splat(x, (8,)), b.make_range(0, 8)))
        b.store(b.addptr(b.splat(x, (8,)), b.make_range(0, 8)), b.math("div_rz", v, v))

    with pytest.raises(TilecError, match="div_rz"):
        Kernel(kernel([pointer_arg("x", T.float32)], body))


def test_bad_ir_is_rejected_before_llvm() -> None:
    """A verifier failure (here: a store of the wrong element type) never reaches LLVM."""

    def body(b, x) -> None:
        v = b.constant(1, T.TileType((8,), T.int32))
        b.insert(O.StoreOp(b.addptr(b.splat(x, (8,)), b.make_range(0, 8)), v))

    with pytest.raises(LoweringError):
        Kernel(kernel([pointer_arg("x", T.float32)], body))


def test_kernel_still_runs_after_errors() -> None:
    def body(b, x) -> None:
        p = b.addptr(b.splat(x, (8,)), b.make_range(0, 8))
        b.store(p, b.binary(O.BinaryKind.ADD, b.load(p), b.load(p)))

    x = np.arange(8, dtype=np.float32)
    Kernel(kernel([pointer_arg("x", T.float32)], body))(1, x)
    np.testing.assert_array_equal(x, 2 * np.arange(8))
