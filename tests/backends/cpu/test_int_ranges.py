"""Integer ranges (cpu/int_ranges.py): a signed ``//`` or ``%`` of values that are never negative
is emitted unsigned, so Inductor's ``(pid * XBLOCK + arange) % n`` loads vectorize; the results
stay C's (truncating) wherever an operand can be negative, including offsets that wrap on a grid
too large for the small-grid program."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tilec.backends.cpu import int_ranges
from tilec.backends.cpu.program import build_module
from tilec.ir import ops as O
from tilec.ir import types as T
from tilec.ir.argspec import pointer_arg

from .support import Kernel, kernel, poisoned

BLOCK = 1024
TRIPLE = "x86_64-unknown-linux-gnu"


def _bias_kernel(modulus: int, shift: int = 0) -> O.ModuleOp:
    """``out[i] = x[i] + bias[(pid * BLOCK + arange + shift) % modulus]`` (Inductor's bias add)
    and ``idx[i] = (pid * BLOCK + arange + shift) // modulus``, both at ``i = arange``."""

    def body(b, px, pbias, pout, pidx) -> None:
        start = b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(BLOCK, T.int32))
        rng = b.make_range(0, BLOCK)
        offs = b.binary(O.BinaryKind.ADD, b.splat(start, (BLOCK,)), rng)
        if shift:
            offs = b.binary(
                O.BinaryKind.ADD, offs, b.constant(shift, T.TileType((BLOCK,), T.int32))
            )
        m = b.constant(modulus, T.TileType((BLOCK,), T.int32))
        col = b.binary(O.BinaryKind.REM, offs, m)
        row = b.binary(O.BinaryKind.DIV, offs, m)
        x = b.load(b.addptr(b.splat(px, (BLOCK,)), rng))
        bias = b.load(b.addptr(b.splat(pbias, (BLOCK,)), col))
        b.store(b.addptr(b.splat(pout, (BLOCK,)), rng), b.binary(O.BinaryKind.ADD, x, bias))
        b.store(b.addptr(b.splat(pidx, (BLOCK,)), rng), row)

    specs = [pointer_arg(n, T.float32) for n in ("x", "bias", "out")]
    return kernel([*specs, pointer_arg("idx", T.int32)], body)


def _programs(module: O.ModuleOp) -> dict[str, str]:
    llmod, _, _ = build_module(module.functions[0], TRIPLE)
    return {f.name: str(f) for f in llmod.functions if f.name.startswith("tilec.program")}


def test_program_offsets_divide_unsigned_on_small_grids() -> None:
    progs = _programs(_bias_kernel(BLOCK))
    # pid * 1024 + arange cannot wrap while the grid has at most 2**21 programs
    small, general = progs["tilec.program"], progs["tilec.program.1"]
    assert "urem i32" in small and "udiv i32" in small and "srem" not in small
    assert "srem i32" in general and "sdiv i32" in general
    # and the offsets cannot wrap there: LLVM may widen them to 64 bits before adding
    assert "mul nsw nuw i32" in small and "add nsw nuw i32" in small
    assert "mul nsw" not in general and "add nsw nuw i32" not in general
    plan = int_ranges.plan(_bias_kernel(BLOCK).functions[0])
    assert plan.small_grid == 1 << 21


def test_no_second_program_without_divisions_to_gain() -> None:
    def body(b, px) -> None:
        offs = b.make_range(0, 64)
        r = b.binary(O.BinaryKind.REM, offs, b.constant(7, T.TileType((64,), T.int32)))
        ptrs = b.addptr(b.splat(px, (64,)), offs)
        b.store(ptrs, b.cast(r, T.TileType((64,), T.float32)))

    progs = _programs(kernel([pointer_arg("x", T.float32)], body))
    assert list(progs) == ["tilec.program"]  # arange % 7 is unsigned for every grid
    assert "urem i32" in progs["tilec.program"]


def test_bias_add_vectorizes() -> None:
    llir = Kernel(_bias_kernel(BLOCK)).compiled.asm["llir"]
    assert re.search(r"fadd <(8|16) x float>", llir), "the bias add should run on vectors"


@pytest.mark.parametrize("shift", [0, -BLOCK // 2])
@pytest.mark.parametrize("modulus", [BLOCK, 1000, 3])
@pytest.mark.parametrize("pid", [0, 5, (1 << 21) - 1, (1 << 21) + 3, (1 << 30) + 7])
def test_results_match_c_division(modulus: int, pid: int, shift: int) -> None:
    """Programs past 2**21 run the general program: pid * 1024 wraps to negative offsets there,
    and their remainders and quotients must be C's, as before (a negative shift makes some
    offsets negative on every grid)."""
    k = Kernel(_bias_kernel(modulus, shift))
    rng = np.random.default_rng(pid + modulus)
    x = rng.standard_normal(BLOCK).astype(np.float32)
    bias = rng.standard_normal(modulus + BLOCK).astype(np.float32)
    # the bias rows a negative remainder reads sit before the pointer the kernel gets
    base = bias[BLOCK:]
    out, idx = poisoned(BLOCK, np.float32), poisoned(BLOCK, np.int32)
    grid = max(pid + 1, 1)
    status = np.zeros(4, dtype=np.int64)
    args = np.array([x.ctypes.data, base.ctypes.data, out.ctypes.data, idx.ctypes.data], np.uint64)
    k.fn(args.ctypes.data, grid, 1, 1, pid, pid + 1, status.ctypes.data)
    assert status[0] == 0
    offs = (np.int64(pid) * BLOCK + np.arange(BLOCK) + shift).astype(np.int64)
    offs = ((offs + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int64)  # i32 wrap-around
    col = np.fmod(offs, modulus)  # C: the remainder has the dividend's sign
    row = (offs - col) // modulus
    assert (col > -BLOCK).all()
    np.testing.assert_array_equal(idx, row.astype(np.int32))
    np.testing.assert_array_equal(out, x + bias[BLOCK + col])


def test_negative_operands_stay_signed() -> None:
    """``(arange - 100) % 7``: negative dividends keep the truncating division."""

    def body(b, pq, pr) -> None:
        offs = b.make_range(0, 256)
        v = b.binary(O.BinaryKind.SUB, offs, b.constant(100, T.TileType((256,), T.int32)))
        seven = b.constant(7, T.TileType((256,), T.int32))
        b.store(b.addptr(b.splat(pq, (256,)), offs), b.binary(O.BinaryKind.DIV, v, seven))
        b.store(b.addptr(b.splat(pr, (256,)), offs), b.binary(O.BinaryKind.REM, v, seven))

    module = kernel([pointer_arg("q", T.int32), pointer_arg("r", T.int32)], body)
    progs = _programs(module)
    assert list(progs) == ["tilec.program"]
    assert "srem i32" in progs["tilec.program"] and "urem i32" not in progs["tilec.program"]
    q, r = poisoned(256, np.int32), poisoned(256, np.int32)
    assert Kernel(module)(1, q, r)[0] == 0
    v = np.arange(256) - 100
    np.testing.assert_array_equal(r, np.fmod(v, 7))
    np.testing.assert_array_equal(q, (v - np.fmod(v, 7)) // 7)


@pytest.mark.parametrize(
    ("kind", "a", "b", "want"),
    [
        (O.BinaryKind.ADD, (0, 10), (-3, 4), (-3, 14)),
        (O.BinaryKind.MUL, (-2, 3), (-5, 7), (-15, 21)),
        (O.BinaryKind.DIV, (-9, 20), (2, 4), (-4, 10)),
        (O.BinaryKind.REM, (-9, 20), (2, 4), (-3, 3)),
        (O.BinaryKind.REM, (0, 2), (5, 9), (0, 2)),
        (O.BinaryKind.AND, (-9, 20), (0, 6), (0, 6)),
        (O.BinaryKind.SHL, (1, 3), (2, 4), (4, 48)),
        (O.BinaryKind.SHR, (-16, 16), (1, 2), (-8, 8)),
    ],
)
def test_interval_arithmetic(kind, a, b, want) -> None:
    got = int_ranges._BINARY.get(kind) or int_ranges._shift(kind is O.BinaryKind.SHL, 32)
    r = got(int_ranges.Interval(*a), int_ranges.Interval(*b))
    assert r == int_ranges.Interval(*want)


def test_overflow_forgets_the_range() -> None:
    """``pid * 2**20`` may wrap in the general program: nothing is known about it there."""

    def body(b, px) -> None:
        big = b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(1 << 20, T.int32))
        q = b.binary(O.BinaryKind.REM, big, b.constant(3, T.int32))
        b.store(px, b.cast(q, T.float32))

    func = kernel([pointer_arg("x", T.float32)], body).functions[0]
    assert not int_ranges.facts(func).unsigned_divisions
    assert int_ranges.facts(func, 1 << 11).unsigned_divisions
    assert int_ranges.plan(func).small_grid == 1 << 11


@pytest.mark.parametrize("pid", [3, (1 << 21) + 3, (1 << 30) + 3])
def test_device_assert_in_either_program(pid: int) -> None:
    """Both programs number their assert sites alike: a failure reports the same site and the
    program that failed, on a small grid and on a large one."""

    def body(b, px) -> None:
        start = b.binary(O.BinaryKind.MUL, b.program_id(0), b.constant(BLOCK, T.int32))
        offs = b.binary(O.BinaryKind.ADD, b.splat(start, (BLOCK,)), b.make_range(0, BLOCK))
        col = b.binary(O.BinaryKind.REM, offs, b.constant(1000, T.TileType((BLOCK,), T.int32)))
        b.assert_(b.compare(O.CompareKind.GE, b.program_id(0), b.constant(0, T.int32)), "ok")
        limit = b.constant(999, T.TileType((BLOCK,), T.int32))
        b.assert_(b.compare(O.CompareKind.LT, col, limit), "column 999")
        b.store(b.addptr(b.splat(px, (BLOCK,)), b.make_range(0, BLOCK)), col)

    k = Kernel(kernel([pointer_arg("x", T.int32)], body))
    assert [a.message for a in k.compiled.metadata.asserts] == ["ok", "column 999"]
    out = poisoned(BLOCK, np.int32)
    status = np.zeros(4, dtype=np.int64)
    args = np.array([out.ctypes.data], np.uint64)
    k.fn(args.ctypes.data, pid + 1, 1, 1, pid, pid + 1, status.ctypes.data)
    offs = (pid * BLOCK + np.arange(BLOCK) + (1 << 31)) % (1 << 32) - (1 << 31)
    fails = (np.fmod(offs, 1000) >= 999).any()
    assert list(status[:2]) == ([2, pid] if fails else [0, 0])
