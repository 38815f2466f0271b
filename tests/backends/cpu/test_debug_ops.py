"""device_print writes Triton's line format from native code; device_assert fills the status
block (1 + assert index, linear program id) and stops that program."""

from __future__ import annotations

import numpy as np

from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg, scalar_arg

from .support import Kernel, kernel


def test_print_scalar_and_tile(capfd) -> None:
    def body(b, x) -> None:
        v = b.load(b.addptr(b.splat(x, (4,)), b.make_range(0, 4)))
        b.print_(" v: ", [v])
        b.print_(" pid: ", [b.program_id(0)])

    k = Kernel(kernel([pointer_arg("x", T.float32)], body))
    k((1, 2), np.array([0.5, 1.5, -2.0, 3.25], np.float32))
    lines = capfd.readouterr().out.splitlines()
    assert "pid (0, 1, 0) idx (2) v: -2.000000" in lines
    assert "pid (0, 0, 0) idx (0) v: 0.500000" in lines
    assert "pid (0, 1, 0) idx () pid: 0" in lines
    # per program: the tile's 4 elements once each, the scalar once per thread of the launch
    # (the default num_warps=4 times the CPU target's warp size of 1), as every GPU thread does
    assert len(lines) == 2 * (4 + 4)


def test_print_2d_hex_and_several_operands(capfd) -> None:
    def body(b, x) -> None:
        r = b.make_range(0, 16)
        two_d = b.reshape(r, (2, 8))
        b.print_(" ", [two_d, b.program_id(0)], hex=True)

    Kernel(kernel([pointer_arg("x", T.float32)], body))(1, np.zeros(1, np.float32))
    out = capfd.readouterr().out
    assert "pid (0, 0, 0) idx (1, 7) (operand 0) 0x0000000f" in out
    assert "pid (0, 0, 0) idx () (operand 1) 0x00000000" in out


def _assert_kernel() -> Kernel:
    def body(b, x, n) -> None:
        offs = b.binary(
            O.BinaryKind.ADD,
            b.splat(b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(8, T.int32)), (8,)),
            b.make_range(0, 8),
        )
        v = b.load(b.addptr(b.splat(x, (8,)), offs))
        b.assert_(
            b.compare(O.CompareKind.GE, b.program_id(0), b.constant(0, T.int32)), "never fails"
        )
        b.assert_(b.compare(O.CompareKind.LT, v, b.splat(n, (8,))), "value too big")
        b.store(b.addptr(b.splat(x, (8,)), offs), b.binary(O.BinaryKind.ADD, v, b.splat(n, (8,))))

    return Kernel(kernel([pointer_arg("x", T.int32), scalar_arg("n", T.int32)], body))


def test_assert_passes() -> None:
    k = _assert_kernel()
    x = np.arange(32, dtype=np.int32)
    status = k(4, x, 100)
    assert list(status[:2]) == [0, 0]
    np.testing.assert_array_equal(x, np.arange(32) + 100)
    assert [a.message for a in k.compiled.metadata.asserts] == ["never fails", "value too big"]


def test_assert_fails_in_one_program() -> None:
    k = _assert_kernel()
    x = np.arange(32, dtype=np.int32)
    x[20] = 1000  # program 2
    status = k(4, x, 100)
    assert status[0] == 2 and status[1] == 2
    np.testing.assert_array_equal(x[:16], np.arange(16) + 100)  # programs before it finished
    assert x[20] == 1000 and x[16] == 16  # the failing program stored nothing
