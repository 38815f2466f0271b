"""Writing the record of a bounds-checked kernel (ir/bounds.py), the same on every backend: the
first failure of a launch claims the record's code word with a compare-and-swap from 0 and
stores its linear program id and the offending address after it. The backends differ only in
how they read their program ids and in the atomic ordering they ask for."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from . import types as T


def linear_program_id(
    b: ir.IRBuilder, pid: Sequence[ir.Value], grid: Sequence[ir.Value]
) -> ir.Value:
    """``x + gx * (y + gy * z)`` as i64, from the three program ids and the grid's first two."""
    x, y, z = (b.zext(p, T.i64) if p.type != T.i64 else p for p in pid)
    gx, gy = (b.zext(g, T.i64) if g.type != T.i64 else g for g in grid[:2])
    return b.add(x, b.mul(gx, b.add(y, b.mul(gy, z))))


def record_first(
    b: ir.IRBuilder, record: ir.Value, code: int, ordering: str, linear: Callable[[], ir.Value],
    address: ir.Value,
) -> None:  # fmt: skip
    """Claim ``record`` with ``code`` if no failure has yet, then store the linear program id
    (``linear()``, computed only by the claiming thread) and ``address`` in its next words."""
    zero, claimed = ir.Constant(T.i64, 0), ir.Constant(T.i64, code)
    pair = b.cmpxchg(record, zero, claimed, ordering, ordering)
    with b.if_then(b.extract_value(pair, 1)):
        b.store(linear(), b.gep(record, [ir.Constant(T.i64, 1)], source_etype=T.i64), align=8)
        b.store(address, b.gep(record, [ir.Constant(T.i64, 2)], source_etype=T.i64), align=8)
